import ClassTodayCore
import Crypto
import Foundation

/// Single-use account tokens and the mails that carry them, on either backend: each token is stored (as its SHA-256)
/// in the same transaction as its mail is queued in `mail_outbox`. The account's row is locked while a token is issued
/// or used, so that two uses of one token on several PostgreSQL nodes apply one after the other.
public struct SQLAccountTokenRepository: AccountTokenRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func createAccount(
        _ user: NewUser, at date: Date, verification: AccountTokenGrant, compose: @Sendable (MailRecipient) -> MailDraft
    ) async throws -> User {
        let created = SQLUserRepository.newUser(user, at: date)
        do {
            try await database.transaction { db in
                try await SQLUserRepository.insert(created, passwordHash: user.passwordHash, db)
                let account = Account(user: created, passwordHash: user.passwordHash)
                try await Self.store(verification, .emailVerification, for: account, email: created.email, db)
                try await SQLMailQueue.enqueue(compose(account.recipient), userId: created.id, at: date, db)
            }
        } catch is SQLUniqueViolation {
            throw DomainError.conflict("an account with this email already exists")
        }
        return created
    }

    public func issuePasswordReset(
        email: String, grant: AccountTokenGrant, compose: @Sendable (MailRecipient) -> MailDraft
    ) async throws -> Bool {
        try await database.transaction { db in
            guard let account = try await Account.read(
                "email_normalized = \(UserRules.normalizedEmail(email)) AND password_hash <> \(SQLUserRepository.noPassword)", db)
            else { return false }
            try await Self.replace(grant, .passwordReset, for: account, email: account.email, db)
            try await SQLMailQueue.enqueue(compose(account.recipient), userId: account.id, at: grant.issuedAt, db)
            return true
        }
    }

    public func issueEmailVerification(
        userId: String, grant: AccountTokenGrant, compose: @Sendable (MailRecipient) -> MailDraft
    ) async throws -> Bool {
        try await database.transaction { db in
            guard let account = try await Account.read("id = \(userId)", db) else { throw DomainError.notFound("user") }
            guard !account.emailVerified, UserRules.isValidEmail(account.email) else { return false }
            try await Self.replace(grant, .emailVerification, for: account, email: account.email, db)
            try await SQLMailQueue.enqueue(compose(account.recipient), userId: account.id, at: grant.issuedAt, db)
            return true
        }
    }

    public func issueEmailChange(
        userId: String, newEmail: String, grant: AccountTokenGrant, compose: @Sendable (MailRecipient) -> [MailDraft]
    ) async throws {
        try await database.transaction { db in
            guard let account = try await Account.read("id = \(userId)", db) else { throw DomainError.notFound("user") }
            let key = UserRules.normalizedEmail(newEmail)
            if try await db.row("SELECT id FROM users WHERE email_normalized = \(key) AND id <> \(userId)") != nil {
                throw DomainError.conflict("an account with this email already exists")
            }
            try await Self.replace(grant, .emailChange, for: account, email: newEmail.trimmingWhitespace(), db)
            for draft in compose(account.recipient) {
                try await SQLMailQueue.enqueue(draft, userId: account.id, at: grant.issuedAt, db)
            }
        }
    }

    public func resetPassword(tokenHash: String, newPasswordHash: String, at date: Date) async throws -> EndedSessions {
        try await database.transaction { db in
            let token = try await Self.use(tokenHash, for: [.passwordReset], at: date, db)
            let now = date.millisecondsSince1970
            // The mail reached the address: it is the user's.
            try await db.execute("""
                UPDATE users SET password_hash = \(newPasswordHash), email_verified_at = COALESCE(email_verified_at, \(now)), updated_at = \(now)
                WHERE id = \(token.userId)
                """)
            let ended = try await SQLSessionRepository.endSessions(ofUser: token.userId, keeping: nil, db)
            return EndedSessions(userId: token.userId, sessionIds: ended)
        }
    }

    public func confirmEmail(tokenHash: String, at date: Date) async throws -> String {
        do {
            return try await database.transaction { db in
                let token = try await Self.use(tokenHash, for: [.emailVerification, .emailChange], at: date, db)
                let now = date.millisecondsSince1970
                if token.purpose == .emailChange {
                    try await db.execute("""
                        UPDATE users SET email = \(token.email), email_normalized = \(UserRules.normalizedEmail(token.email)),
                            email_verified_at = \(now), updated_at = \(now)
                        WHERE id = \(token.userId)
                        """)
                } else {
                    try await db.execute("""
                        UPDATE users SET email_verified_at = COALESCE(email_verified_at, \(now)) WHERE id = \(token.userId)
                        """)
                }
                return token.userId
            }
        } catch is SQLUniqueViolation {
            throw DomainError.conflict("another account took this address meanwhile")
        }
    }

    public func changePassword(userId: String, newPasswordHash: String, keeping sessionId: String, at date: Date) async throws -> EndedSessions {
        try await database.transaction { db in
            guard try await Account.read("id = \(userId)", db) != nil else { throw DomainError.notFound("user") }
            let now = date.millisecondsSince1970
            try await db.execute("UPDATE users SET password_hash = \(newPasswordHash), updated_at = \(now) WHERE id = \(userId)")
            return EndedSessions(userId: userId, sessionIds: try await SQLSessionRepository.endSessions(ofUser: userId, keeping: sessionId, db))
        }
    }

    @discardableResult
    public func deleteExpired(before date: Date) async throws -> Int {
        try await database.execute("DELETE FROM account_tokens WHERE expires_at <= \(date.millisecondsSince1970)")
    }

    // MARK: Tokens

    /// A stored token, with what it was issued for.
    private struct StoredToken {
        let userId: String
        let purpose: AccountTokenPurpose
        let email: String
    }

    /// A digest of the account's credentials, kept with each token: when the password or the address changes, the
    /// stamp does, and the token stops working.
    static func stamp(passwordHash: String, emailKey: String) -> String {
        SHA256.hash(data: Data((passwordHash + "\n" + emailKey).utf8)).hexString
    }

    /// Stores `grant` for `purpose`, replacing the account's earlier unused tokens of that purpose (only the newest
    /// mail's link works).
    private static func replace(
        _ grant: AccountTokenGrant, _ purpose: AccountTokenPurpose, for account: Account, email: String, _ db: any SQLExecutor
    ) async throws {
        try await db.execute("""
            DELETE FROM account_tokens WHERE user_id = \(account.id) AND purpose = \(purpose.rawValue) AND used_at IS NULL
            """)
        try await store(grant, purpose, for: account, email: email, db)
    }

    private static func store(
        _ grant: AccountTokenGrant, _ purpose: AccountTokenPurpose, for account: Account, email: String, _ db: any SQLExecutor
    ) async throws {
        try await db.execute("""
            INSERT INTO account_tokens (token_hash, user_id, purpose, email, stamp, created_at, expires_at)
            VALUES (\(grant.tokenHash), \(account.id), \(purpose.rawValue), \(email), \(account.stamp),
                \(grant.issuedAt.millisecondsSince1970), \(grant.expiresAt.millisecondsSince1970))
            """)
    }

    /// Marks the token with `tokenHash` used and returns it, when it works: one of `purposes`, unused, unexpired at
    /// `date`, of a live account whose password and address are as they were. Throws ``AccountTokenRules/invalidToken``.
    private static func use(
        _ tokenHash: String, for purposes: Set<AccountTokenPurpose>, at date: Date, _ db: any SQLExecutor
    ) async throws -> StoredToken {
        guard let row = try await db.row("""
            SELECT t.token_hash, t.user_id, t.purpose, t.email, t.stamp, t.expires_at, t.used_at, u.password_hash, u.email_normalized
            FROM account_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.token_hash = \(tokenHash) AND u.deleted_at IS NULL \(raw: db.dialect.lockForUpdate)
            """)
        else { throw AccountTokenRules.invalidToken }
        let stored: String = try row["token_hash"]
        let current = stamp(passwordHash: try row["password_hash"], emailKey: try row["email_normalized"])
        guard ConstantTime.equals(stored, tokenHash), let purpose = AccountTokenPurpose(rawValue: try row["purpose"]),
              purposes.contains(purpose), try row.optionalDate("used_at") == nil, try row.date("expires_at") > date,
              ConstantTime.equals(try row["stamp"], current)
        else { throw AccountTokenRules.invalidToken }
        try await db.execute("UPDATE account_tokens SET used_at = \(date.millisecondsSince1970) WHERE token_hash = \(tokenHash)")
        return StoredToken(userId: try row["user_id"], purpose: purpose, email: try row["email"])
    }

    // MARK: Accounts

    /// What issuing a token reads of an account (its row locked until the transaction ends).
    private struct Account {
        let id: String
        let email: String
        let nickname: String
        let locale: UserLocale
        let emailVerified: Bool
        /// ``SQLAccountTokenRepository/stamp(passwordHash:emailKey:)`` of the account now.
        let stamp: String

        var recipient: MailRecipient { MailRecipient(userId: id, email: email, nickname: nickname, locale: locale) }

        init(user: User, passwordHash: String) {
            (id, email, nickname, locale, emailVerified) = (user.id, user.email, user.nickname, user.locale, user.emailVerified)
            stamp = SQLAccountTokenRepository.stamp(passwordHash: passwordHash, emailKey: UserRules.normalizedEmail(user.email))
        }

        init(row: SQLRow) throws {
            (id, email, nickname) = (try row["id"], try row["email"], try row["nickname"])
            locale = UserLocale(rawValue: try row["locale"]) ?? .default
            emailVerified = try row.optionalDate("email_verified_at") != nil
            stamp = SQLAccountTokenRepository.stamp(passwordHash: try row["password_hash"], emailKey: try row["email_normalized"])
        }

        /// The live account matching `condition`, locked.
        static func read(_ condition: SQLStatement, _ db: any SQLExecutor) async throws -> Account? {
            try await db.row("""
                SELECT id, email, email_normalized, password_hash, nickname, locale, email_verified_at FROM users
                WHERE \(condition) AND deleted_at IS NULL \(raw: db.dialect.lockForNoKeyUpdate)
                """).map(Account.init(row:))
        }
    }
}
