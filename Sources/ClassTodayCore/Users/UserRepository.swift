import Foundation

/// The fields of a user created at signup.
public struct NewUser: Sendable, Hashable {
    /// The email as typed.
    public let email: String
    /// The bcrypt hash of the password.
    public let passwordHash: String
    /// The display name.
    public let nickname: String
    /// The version of the terms of service accepted at signup, if the signup recorded one.
    public let termsVersion: String?
    /// The language the user reads mails in.
    public let locale: UserLocale

    /// Creates the signup record.
    public init(email: String, passwordHash: String, nickname: String, termsVersion: String? = nil, locale: UserLocale = .default) {
        self.locale = locale
        self.email = email
        self.passwordHash = passwordHash
        self.nickname = nickname
        self.termsVersion = termsVersion
    }
}

/// Stores users. Implementations are named after their backend.
public protocol UserRepository: Sendable {
    /// Creates a user; throws ``DomainError/conflict(_:)`` when the email (in any case) is taken.
    func create(_ user: NewUser, at date: Date) async throws -> User
    /// The user with this id, if any.
    func user(id: String) async throws -> User?
    /// The login credentials for an email compared case-insensitively.
    func credentials(email: String) async throws -> UserCredentials?
    /// Reads, changes and stores one user in a single transaction; throws ``DomainError/notFound(_:)``.
    func update(id: String, _ change: @Sendable (inout User) throws -> Void) async throws -> User
    /// Deletes the account `id` by the rules of ``AccountDeletion`` in one transaction: its row becomes an anonymous
    /// tombstone, its sessions, alerts, notifications, favourites and blocks go, and its listings are deleted and
    /// erased. Throws ``DomainError/notFound(_:)`` for an unknown or already deleted account. The images that nothing
    /// shows any more are left to ``ImageRecordRepository/collectGarbage(uploadedBefore:by:)``.
    func delete(id: String, at date: Date) async throws
}

extension UserRepository {
    /// The user with this id; throws ``DomainError/notFound(_:)`` when there is none.
    public func existingUser(id: String) async throws -> User {
        guard let user = try await user(id: id) else { throw DomainError.notFound("user") }
        return user
    }

    /// The password hash of `user`'s own account; nil for an account without a password. An account a provider
    /// created may carry the email of another account, one with a password: only the user's own credentials count.
    public func ownPasswordHash(of user: User) async throws -> String? {
        try await credentials(email: user.email).flatMap { $0.userId == user.id ? $0.passwordHash : nil }
    }
}

/// Stores bearer-token sessions by the hash of their token, with the refresh tokens that renew them. A sign-in starts
/// a family: each refresh uses up its refresh token and issues a new bearer token and refresh token in the same
/// family; a refresh token used twice revokes its whole family (it was copied).
public protocol SessionRepository: Sendable {
    /// Records the tokens of a new sign-in of the user, as a new family.
    func start(_ grant: SessionGrant, userId: String) async throws
    /// Uses up the unexpired refresh token with this hash and records `grant` in its family, in one transaction. A
    /// refresh token that was used already revokes every bearer and refresh token of its family.
    func refresh(tokenHash: String, with grant: SessionGrant) async throws -> RefreshOutcome
    /// The owner of the unexpired, unrevoked session with this token hash: the user, their role and any suspension
    /// in force at `now`.
    func owner(tokenHash: String, now: Date) async throws -> SessionOwner?
    /// Revokes the session with this token hash and its whole family: every bearer token refreshing issued in it, its
    /// refresh tokens and the push devices it registered (nothing happens for an unknown hash).
    func revoke(tokenHash: String) async throws
    /// Deletes sessions and refresh tokens that expired before `date`, and the push devices of sessions left with neither;
    /// returns how many sessions and refresh tokens went.
    @discardableResult
    func deleteExpired(before date: Date) async throws -> Int
}
