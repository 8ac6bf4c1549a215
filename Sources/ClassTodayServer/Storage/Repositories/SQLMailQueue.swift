import ClassTodayCore
import Foundation

/// The mail outbox, on either backend. Mails are queued with ``enqueue(_:userId:at:_:)`` inside the transaction of
/// their cause; several nodes claim from it at once: PostgreSQL's `FOR UPDATE SKIP LOCKED` gives each node rows no
/// other holds, SQLite has one writer.
public struct SQLMailQueue: MailQueue {
    private let database: any SQLDatabase

    /// Creates the queue over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Queues `draft` (for the account `userId`, whose deletion takes it back) in the caller's transaction, due at once.
    static func enqueue(_ draft: MailDraft, userId: String?, at date: Date, _ db: any SQLExecutor) async throws {
        let now = date.millisecondsSince1970
        try await db.execute("""
            INSERT INTO mail_outbox (id, user_id, kind, recipient, subject, text_body, html_body, link, message_id, queued_at,
                attempts, available_at)
            VALUES (\(Identifier.make(at: date)), \(userId), \(draft.kind.rawValue), \(draft.to), \(draft.subject), \(draft.text),
                \(draft.html), \(draft.link), \(Identifier.make(at: date).lowercased()), \(now), 0, \(now))
            """)
    }

    public func claim(limit: Int, at date: Date, lease: Duration) async throws -> [QueuedMail] {
        try await database.transaction { db in
            let rows = try await db.rows("""
                SELECT id, kind, recipient, subject, text_body, html_body, link, message_id, queued_at, attempts FROM mail_outbox
                WHERE available_at <= \(date.millisecondsSince1970) ORDER BY available_at, id LIMIT \(limit)
                \(raw: db.dialect.lockSkippingLocked)
                """)
            guard !rows.isEmpty else { return [] }
            let ids: [String] = try rows.map { try $0["id"] }
            let leaseEnd = date.addingTimeInterval(lease.seconds).millisecondsSince1970
            try await db.execute("UPDATE mail_outbox SET attempts = attempts + 1, available_at = \(leaseEnd) WHERE id IN \(db.dialect.list(ids))")
            return try rows.map { row in
                let draft = MailDraft(
                    kind: MailKind(rawValue: try row["kind"]) ?? .emailVerification, to: try row["recipient"], subject: try row["subject"],
                    text: try row["text_body"], html: try row["html_body"], link: try row["link"])
                return QueuedMail(id: try row["id"], draft: draft, messageId: try row["message_id"], queuedAt: try row.date("queued_at"),
                                  attempts: try row["attempts"] + 1)
            }
        }
    }

    public func finish(_ id: String) async throws {
        try await database.execute("DELETE FROM mail_outbox WHERE id = \(id)")
    }

    public func retry(_ id: String, at date: Date) async throws {
        try await database.execute("UPDATE mail_outbox SET available_at = \(date.millisecondsSince1970) WHERE id = \(id)")
    }

    public func count() async throws -> Int {
        try await database.row("SELECT COUNT(*) AS n FROM mail_outbox")?["n"] ?? 0
    }
}
