import ClassTodayCore
import Foundation

/// Provider identities, on either backend. Linking and unlinking lock the user's row, so that two unlinks at once
/// cannot leave an account without a way to sign in.
public struct SQLIdentityRepository: IdentityRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func signIn(_ identity: VerifiedIdentity, newUser: NewProviderUser, at date: Date) async throws -> (user: User, created: Bool) {
        if let user = try await Self.owner(of: identity, database) { return (user, false) }
        let user = User(id: Identifier.make(at: date), email: identity.email ?? "", nickname: newUser.nickname,
                        termsVersion: newUser.termsVersion, termsAcceptedAt: date, createdAt: date,
                        emailVerified: identity.email != nil)
        do {
            try await database.transaction { db in
                try await SQLUserRepository.insert(user, passwordHash: SQLUserRepository.noPassword,
                                                   emailKey: SQLUserRepository.providerAccountKey(user.id), db)
                try await Self.insert(identity, userId: user.id, at: date, db)
            }
            return (user, true)
        } catch is SQLUniqueViolation {
            // A first sign-in of the same identity on another request committed first: that account is the one.
            guard let user = try await Self.owner(of: identity, database) else { throw DomainError.conflict("the sign-in raced another one; try again") }
            return (user, false)
        }
    }

    public func methods(userId: String) async throws -> SignInMethods {
        try await database.read { db in try await Self.methods(userId: userId, lock: "", db) }
    }

    public func link(_ identity: VerifiedIdentity, toUser userId: String, at date: Date) async throws -> LinkOutcome {
        do {
            return try await database.transaction { db in
                let methods = try await Self.methods(userId: userId, lock: db.dialect.lockForNoKeyUpdate, db)
                if let row = try await db.row("""
                    SELECT user_id, email, created_at FROM identities
                    WHERE provider = \(identity.provider.rawValue) AND subject = \(identity.subject)
                    """) {
                    guard try row["user_id"] as String == userId else {
                        throw DomainError.conflict("this \(identity.provider.displayName) account is linked to another account")
                    }
                    return .alreadyLinked(try Self.linkedIdentity(identity.provider, row))
                }
                guard !methods.identities.contains(where: { $0.provider == identity.provider }) else {
                    throw DomainError.conflict("another \(identity.provider.displayName) account is linked already; unlink it first")
                }
                try await Self.insert(identity, userId: userId, at: date, db)
                return .linked(LinkedIdentity(provider: identity.provider, email: identity.email, linkedAt: date))
            }
        } catch is SQLUniqueViolation {
            throw DomainError.conflict("this \(identity.provider.displayName) account was linked by another request")
        }
    }

    public func unlink(_ provider: IdentityProvider, fromUser userId: String) async throws {
        try await database.transaction { db in
            let methods = try await Self.methods(userId: userId, lock: db.dialect.lockForNoKeyUpdate, db)
            guard methods.identities.contains(where: { $0.provider == provider }) else {
                throw DomainError.notFound("\(provider.displayName) identity")
            }
            guard methods.canSignIn(without: provider) else {
                throw DomainError.invalid("provider", "is the only way left to sign in to this account; link another provider first")
            }
            try await db.execute("DELETE FROM identities WHERE user_id = \(userId) AND provider = \(provider.rawValue)")
        }
    }

    /// The account an identity is linked to, if any.
    private static func owner(of identity: VerifiedIdentity, _ db: any SQLExecutor) async throws -> User? {
        try await db.row("""
            SELECT u.* FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.provider = \(identity.provider.rawValue) AND i.subject = \(identity.subject)
            """).map(User.init(row:))
    }

    /// How the user can sign in (identities by provider name), reading the user's row with `lock` appended.
    private static func methods(userId: String, lock: String, _ db: any SQLExecutor) async throws -> SignInMethods {
        guard let user = try await db.row("SELECT password_hash FROM users WHERE id = \(userId) \(raw: lock)") else {
            throw DomainError.notFound("user")
        }
        let identities = try await db.rows("""
            SELECT provider, email, created_at FROM identities WHERE user_id = \(userId) ORDER BY provider \(raw: db.dialect.byteOrder)
            """).compactMap { row in try IdentityProvider(rawValue: row["provider"]).map { try linkedIdentity($0, row) } }
        return SignInMethods(identities: identities, hasPassword: try user["password_hash"] as String != SQLUserRepository.noPassword)
    }

    private static func linkedIdentity(_ provider: IdentityProvider, _ row: SQLRow) throws -> LinkedIdentity {
        LinkedIdentity(provider: provider, email: try row["email"], linkedAt: try row.date("created_at"))
    }

    private static func insert(_ identity: VerifiedIdentity, userId: String, at date: Date, _ db: any SQLExecutor) async throws {
        try await db.execute("""
            INSERT INTO identities (provider, subject, user_id, email, created_at)
            VALUES (\(identity.provider.rawValue), \(identity.subject), \(userId), \(identity.email), \(date.millisecondsSince1970))
            """)
    }
}
