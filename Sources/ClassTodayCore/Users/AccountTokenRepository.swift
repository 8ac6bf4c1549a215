import Foundation

/// What a single-use account token lets its holder do.
public enum AccountTokenPurpose: String, Sendable, Hashable, CaseIterable {
    /// Choose a new password (`POST /v1/auth/password-reset/confirm`).
    case passwordReset = "password_reset"
    /// Confirm that the account's address is the user's (`POST /v1/auth/verify-email`).
    case emailVerification = "email_verification"
    /// Make the address the token was mailed to the account's address (`POST /v1/auth/verify-email`).
    case emailChange = "email_change"
}

/// A token about to be issued: only its hash is stored, the token itself goes out in a mail.
public struct AccountTokenGrant: Sendable, Hashable {
    /// Hex SHA-256 of the token.
    public let tokenHash: String
    /// When it was issued.
    public let issuedAt: Date
    /// After this instant it no longer works.
    public let expiresAt: Date

    /// Creates a grant.
    public init(tokenHash: String, issuedAt: Date, expiresAt: Date) {
        (self.tokenHash, self.issuedAt, self.expiresAt) = (tokenHash, issuedAt, expiresAt)
    }
}

/// The rules of account tokens.
public enum AccountTokenRules {
    /// How long a token works after it was mailed.
    public static let lifetime: Duration = .seconds(30 * 60)
    /// How many random bytes a token holds (128 bits).
    public static let randomBytes = 16
    /// Accepted lengths of a token sent back by a client.
    public static let tokenLength = 1...128

    /// The one answer to a token that is unknown, used, expired or no longer fits the account (its password or
    /// address changed since): the same whichever it is, so that it tells nothing about which accounts exist.
    public static let invalidToken = DomainError.badRequest(
        "the token is unknown, used or expired; ask for a new mail",
        errors: [FieldError(field: "token", message: "is unknown, used or expired")])
}

/// What a password reset or change ended: the account and its sign-ins, whose chat connections must close.
public struct EndedSessions: Sendable, Hashable {
    /// The account.
    public let userId: String
    /// The sign-ins (session ids, as ``SessionOwner/sessionId``) that were ended.
    public let sessionIds: [String]

    /// Creates the record.
    public init(userId: String, sessionIds: [String]) {
        (self.userId, self.sessionIds) = (userId, sessionIds)
    }
}

/// Single-use account tokens (password reset, email verification and change) and the mails that carry them, written
/// together: a token is stored (as its hash) in the same transaction as the mail that carries it is queued. A token
/// works once, for ``AccountTokenRules/lifetime``, and only while the account's password and address are what they
/// were when it was issued. Implementations are named after their backend.
public protocol AccountTokenRepository: Sendable {
    /// Creates an account (as ``UserRepository/create(_:at:)``) with an email-verification token, and queues the mail
    /// `compose` makes for it, in one transaction.
    func createAccount(
        _ user: NewUser, at date: Date, verification: AccountTokenGrant, compose: @Sendable (MailRecipient) -> MailDraft
    ) async throws -> User
    /// Issues a password-reset token to the account whose address is `email` (compared case-insensitively) and that
    /// has a password, replacing its earlier unused ones, and queues `compose`'s mail; returns whether there was such an
    /// account. Nothing happens for an unknown address.
    @discardableResult
    func issuePasswordReset(email: String, grant: AccountTokenGrant, compose: @Sendable (MailRecipient) -> MailDraft) async throws -> Bool
    /// Issues an email-verification token for the account's address and queues `compose`'s mail; returns false (and
    /// does nothing) when the address is verified already. Throws ``DomainError/notFound(_:)`` for an unknown account.
    @discardableResult
    func issueEmailVerification(userId: String, grant: AccountTokenGrant, compose: @Sendable (MailRecipient) -> MailDraft) async throws -> Bool
    /// Issues an email-change token for `newEmail` and queues `compose`'s mails (the link to the new address, the
    /// notice to the old one). Throws ``DomainError/conflict(_:)`` when another account has `newEmail`.
    func issueEmailChange(
        userId: String, newEmail: String, grant: AccountTokenGrant, compose: @Sendable (MailRecipient) -> [MailDraft]
    ) async throws
    /// Uses up a password-reset token: sets the password to `newPasswordHash` and ends every sign-in of the account
    /// (refresh families, bearer tokens, the push devices they registered); the address counts as verified, since the
    /// mail reached it. Throws ``AccountTokenRules/invalidToken`` for a token that does not work.
    func resetPassword(tokenHash: String, newPasswordHash: String, at date: Date) async throws -> EndedSessions
    /// Uses up an email-verification or email-change token: marks the address verified, or makes the new address the
    /// account's (verified). Returns the account's id. Throws ``AccountTokenRules/invalidToken`` for a token that does
    /// not work and ``DomainError/conflict(_:)`` when the new address was taken meanwhile.
    func confirmEmail(tokenHash: String, at date: Date) async throws -> String
    /// Sets the password of `userId` to `newPasswordHash` and ends every sign-in of it but `keeping`.
    func changePassword(userId: String, newPasswordHash: String, keeping sessionId: String, at date: Date) async throws -> EndedSessions
    /// Deletes tokens that expired before `date`; returns how many went.
    @discardableResult
    func deleteExpired(before date: Date) async throws -> Int
}
