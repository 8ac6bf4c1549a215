import ClassTodayCore
import Foundation

/// Writes the mails about an account (reset, verification, change of address, the notice to the old address) from the
/// templates, in the recipient's language, with the token as a code to type and as a link. Links go to the web console
/// with the token after `#`, which browsers never send to a server (so it stays out of access logs and `Referer`).
struct AccountMails: Sendable {
    /// The templates.
    let templates: MailTemplates
    /// The base URL of links, without a trailing slash.
    let baseURL: String

    /// The mail with a password-reset token.
    func passwordReset(token: String, to recipient: MailRecipient) -> MailDraft {
        draft(.passwordReset, to: recipient.email, recipient, token: token, page: "reset-password", email: recipient.email)
    }

    /// The mail with an email-verification token for the recipient's address.
    func emailVerification(token: String, to recipient: MailRecipient) -> MailDraft {
        draft(.emailVerification, to: recipient.email, recipient, token: token, page: "verify-email", email: recipient.email)
    }

    /// The mails of a change of address: the token to `newEmail`, and the notice, with nothing to act on, to the
    /// address the account has now (when it has one).
    func emailChange(token: String, newEmail: String, for recipient: MailRecipient) -> [MailDraft] {
        var drafts = [draft(.emailChange, to: newEmail, recipient, token: token, page: "verify-email", email: newEmail)]
        if UserRules.isValidEmail(recipient.email) {
            let notice = templates.render(.emailChangeNotice, locale: recipient.locale,
                                          values: ["nickname": recipient.nickname, "email": newEmail])
            drafts.append(MailDraft(kind: .emailChangeNotice, to: recipient.email, subject: notice.subject, text: notice.text, html: notice.html))
        }
        return drafts
    }

    private func draft(_ kind: MailKind, to address: String, _ recipient: MailRecipient, token: String, page: String, email: String) -> MailDraft {
        let link = "\(baseURL)/console#\(page)?token=\(token)"
        let minutes = Int(AccountTokenRules.lifetime.seconds / 60)
        let rendered = templates.render(kind, locale: recipient.locale, values: [
            "nickname": recipient.nickname, "code": token, "link": link, "minutes": "\(minutes)", "email": email,
        ])
        return MailDraft(kind: kind, to: address, subject: rendered.subject, text: rendered.text, html: rendered.html, link: link)
    }
}
