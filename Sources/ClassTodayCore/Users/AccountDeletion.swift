import Foundation

/// What deleting an account keeps and how what it keeps is shown.
///
/// The user's row stays as an anonymous tombstone, because chat messages, matches, reviews and reports point at it:
/// the counterpart keeps the conversation, shown from ``deletedNickname``. Everything personal goes: the email (the
/// address can sign up again as a new account), the password, the profile and its photo, the location, sessions,
/// alerts, notifications, favourites and blocks; the user's listings are deleted and their descriptions, places and
/// locations erased; the images nothing shows any more are collected.
public enum AccountDeletion {
    /// The name shown for a deleted account wherever its messages, listings or reviews are shown.
    public static let deletedNickname = "탈퇴한 사용자"

    /// The error for a message or proposal in a room whose other member deleted their account.
    public static let counterpartDeleted = DomainError.forbidden("the other member deleted their account")

    /// How recent a sign-in must be to delete an account that has no password (one created by a sign-in provider).
    public static let freshSignIn: TimeInterval = 10 * 60

    /// Throws unless the caller proved again who they are: the account's password when it has one, otherwise a
    /// session started within ``freshSignIn`` of `now`.
    ///
    /// - Parameters:
    ///   - passwordMatches: whether the password sent matches (nil when none was sent or the account has none).
    ///   - hasPassword: whether the account has a password.
    ///   - sessionStart: when the caller's session started.
    public static func checkReauthentication(passwordMatches: Bool?, hasPassword: Bool, sessionStart: Date, now: Date) throws {
        if hasPassword {
            guard let passwordMatches else { throw DomainError.invalid("password", "is required to delete the account") }
            guard passwordMatches else { throw DomainError.forbidden("the password is wrong") }
        } else if now.timeIntervalSince(sessionStart) > freshSignIn {
            throw DomainError.forbidden("sign in again, then delete the account within \(Int(freshSignIn / 60)) minutes")
        }
    }
}
