import Foundation

/// What a mail is about: its template, and what the delivery counts it as.
public enum MailKind: String, Sendable, Hashable, CaseIterable {
    /// A code and link to choose a new password.
    case passwordReset = "password-reset"
    /// A code and link to confirm that an address is the user's, sent at signup and on request.
    case emailVerification = "email-verification"
    /// A code and link, sent to a new address, that make it the account's address.
    case emailChange = "email-change"
    /// A notice to the old address that a change to another was asked for: nothing in it to act on.
    case emailChangeNotice = "email-change-notice"
}

/// A mail rendered and ready to queue: who gets it and what it says, in plain text and HTML.
public struct MailDraft: Sendable, Hashable {
    /// What it is about.
    public let kind: MailKind
    /// The recipient's address (one that ``UserRules/isValidEmail(_:)`` accepts).
    public let to: String
    /// The subject, any Unicode.
    public let subject: String
    /// The plain-text body.
    public let text: String
    /// The HTML body.
    public let html: String
    /// The link the mail carries, if any: logged when mail is written to files instead of sent (a local set-up).
    public let link: String?

    /// Creates a draft.
    public init(kind: MailKind, to: String, subject: String, text: String, html: String, link: String? = nil) {
        (self.kind, self.to, self.subject, self.text, self.html, self.link) = (kind, to, subject, text, html, link)
    }
}

/// Who a mail is for, as the account says at the time it is written.
public struct MailRecipient: Sendable, Hashable {
    /// The account.
    public let userId: String
    /// The account's address now.
    public let email: String
    /// The display name.
    public let nickname: String
    /// The language the account reads mail in.
    public let locale: UserLocale

    /// Creates a recipient.
    public init(userId: String, email: String, nickname: String, locale: UserLocale) {
        (self.userId, self.email, self.nickname, self.locale) = (userId, email, nickname, locale)
    }
}
