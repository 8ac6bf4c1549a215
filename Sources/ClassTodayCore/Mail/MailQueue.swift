import Foundation

/// One mail claimed from the outbox for a try.
public struct QueuedMail: Sendable, Hashable {
    /// The outbox row's id.
    public let id: String
    /// The message, as queued.
    public let draft: MailDraft
    /// The `Message-ID` chosen when it was queued (without angle brackets): every try sends the same one, so that a
    /// receiver can tell a repeat.
    public let messageId: String
    /// When it was queued: the message's `Date`.
    public let queuedAt: Date
    /// How many times it has been claimed, this time included.
    public let attempts: Int

    /// Creates a claimed mail.
    public init(id: String, draft: MailDraft, messageId: String, queuedAt: Date, attempts: Int) {
        (self.id, self.draft, self.messageId, self.queuedAt, self.attempts) = (id, draft, messageId, queuedAt, attempts)
    }
}

/// The mail outbox. Mails are queued in the transaction that stores their cause (a token issued, an account created);
/// the delivery service claims due ones under a lease, so that a node that dies while sending delays a mail without
/// losing it, and deletes each once the server accepted it.
public protocol MailQueue: Sendable {
    /// Claims at most `limit` due mails (oldest first; rows other nodes hold are skipped) for `lease`.
    func claim(limit: Int, at date: Date, lease: Duration) async throws -> [QueuedMail]
    /// Forgets a mail that was sent, or given up.
    func finish(_ id: String) async throws
    /// Makes a mail due again at `date`.
    func retry(_ id: String, at date: Date) async throws
    /// How many mails wait in the outbox.
    func count() async throws -> Int
}
