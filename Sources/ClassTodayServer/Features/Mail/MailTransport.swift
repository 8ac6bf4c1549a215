import ClassTodayCore

/// What became of one try to send a mail.
enum MailOutcome: Sendable, Equatable {
    /// The server accepted it (or it was written to its file): done.
    case sent
    /// A failure that may pass (4xx, no connection, a timeout): try again later.
    case retry(reason: String)
    /// A failure that trying again cannot fix (5xx: refused recipient, rejected credentials): give up.
    case failed(reason: String)
}

/// Where mails go: an SMTP server (``SMTPClient``) or a folder of `.eml` files (``MailFolderTransport``). Never
/// throws: every failure becomes a ``MailOutcome``.
protocol MailTransport: Sendable {
    /// The transport's name for logs (`smtp mail.example.com:587 starttls`, `folder ./data/mail`).
    var name: String { get }
    /// Sends `message`, the bytes of a whole RFC 5322 message with CRLF line ends, from `sender` to `recipient`.
    /// `mail` is what the message was made from.
    func send(_ message: [UInt8], from sender: String, to recipient: String, mail: QueuedMail) async -> MailOutcome
}
