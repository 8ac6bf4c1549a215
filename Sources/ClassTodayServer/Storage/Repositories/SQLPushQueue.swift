import ClassTodayCore
import Foundation

/// The push outbox and its deliveries, on either backend. Several nodes take from both queues at once:
/// PostgreSQL's `FOR UPDATE SKIP LOCKED` gives each node rows no other holds; SQLite has one writer.
public struct SQLPushQueue: PushQueue {
    private let database: any SQLDatabase

    /// Creates the queue over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func expand(limit: Int, at date: Date, online: @Sendable ([String]) async -> Set<String>) async throws -> Int {
        try await database.transaction { db in
            let queued = try await db.rows("""
                SELECT * FROM push_outbox ORDER BY queued_at, id LIMIT \(limit) \(raw: db.dialect.lockSkippingLocked)
                """).map(QueuedPush.init(row:))
            guard !queued.isEmpty else { return 0 }
            let context = try await PushContext.read(for: queued, online: online, db)
            var rows: [[SQLValue]] = []
            for push in queued {
                guard let content = context.content(for: push) else { continue }
                let json = String(decoding: try JSONEncoder().encode(content), as: UTF8.self)
                for device in context.devices[push.userId] ?? [] {
                    rows.append([Identifier.make(at: date).sqlValue, device.token.sqlValue, push.userId.sqlValue,
                                 device.platform.rawValue.sqlValue, json.sqlValue, push.queuedAt.sqlValue,
                                 date.millisecondsSince1970.sqlValue, push.kind.rawValue.sqlValue, push.roomId.sqlValue,
                                 push.senderId.sqlValue, push.messageId.sqlValue, push.classId.sqlValue])
                }
            }
            if !rows.isEmpty {
                let types: [SQLDialect.ColumnType] = [.text, .text, .text, .text, .text, .integer, .integer, .text, .text, .text, .text, .text]
                var insert: SQLStatement = """
                    WITH d(id, device_token, user_id, platform, content, queued_at, available_at, kind, room_id, sender_id, message_id, class_id)
                        AS (\(db.dialect.rows(rows, types: types)))
                    INSERT INTO push_deliveries (id, device_token, user_id, platform, content, queued_at, attempts, available_at,
                        kind, room_id, sender_id, message_id, class_id)
                    SELECT id, device_token, user_id, platform, content, queued_at, 0, available_at, kind, room_id, sender_id, message_id, class_id
                    FROM d
                    """
                insert.isCached = false
                try await db.execute(insert)
            }
            try await db.execute("DELETE FROM push_outbox WHERE id IN \(db.dialect.list(queued.map(\.id)))")
            return queued.count
        }
    }

    public func claim(
        limit: Int, at date: Date, lease: Duration, online: @Sendable ([String]) async -> Set<String>
    ) async throws -> [PushDelivery] {
        try await database.transaction { db in
            let now = date.millisecondsSince1970
            var rows = try await db.rows("""
                SELECT id, device_token, user_id, platform, content, queued_at, attempts, kind, room_id, sender_id, message_id, class_id
                FROM push_deliveries
                WHERE available_at <= \(now) ORDER BY available_at, id LIMIT \(limit) \(raw: db.dialect.lockSkippingLocked)
                """)
            guard !rows.isEmpty else { return [] }
            rows = try await Self.withdrawingUnwanted(rows, online: online, db)
            guard !rows.isEmpty else { return [] }
            let deliveries = try rows.compactMap { row -> PushDelivery? in
                let content: String = try row["content"]
                guard let platform = DevicePlatform(rawValue: try row["platform"]),
                      let decoded = try? JSONDecoder().decode(PushContent.self, from: Data(content.utf8)) else { return nil }
                return PushDelivery(id: try row["id"], deviceToken: try row["device_token"], platform: platform, content: decoded,
                                    queuedAt: try row.date("queued_at"), attempts: try row["attempts"] + 1)
            }
            let leaseEnd = date.addingTimeInterval(lease.seconds).millisecondsSince1970
            let ids: [String] = try rows.map { try $0["id"] }
            try await db.execute("""
                UPDATE push_deliveries SET attempts = attempts + 1, available_at = \(leaseEnd) WHERE id IN \(db.dialect.list(ids))
                """)
            // Rows this version cannot read are dropped rather than claimed forever.
            let unreadable = Set(ids).subtracting(deliveries.map(\.id))
            if !unreadable.isEmpty {
                try await db.execute("DELETE FROM push_deliveries WHERE id IN \(db.dialect.list(unreadable.sorted()))")
            }
            return deliveries
        }
    }

    /// `rows` (due deliveries) less those that may no longer go, which are deleted: what was decided when they were
    /// expanded is decided again now, for each try (the recipient came online, muted the room, blocked the sender or
    /// was blocked, or the message was removed). Rows without a cause (expanded before causes were kept) stay.
    private static func withdrawingUnwanted(
        _ rows: [SQLRow], online: @Sendable ([String]) async -> Set<String>, _ db: any SQLExecutor
    ) async throws -> [SQLRow] {
        let causes = try rows.filter { try $0["kind"] as String? != nil }.map(QueuedPush.init(row:))
        guard !causes.isEmpty else { return rows }
        let context = try await PushContext.read(for: causes, online: online, db)
        let withdrawn = causes.filter { context.content(for: $0) == nil }.map(\.id)
        guard !withdrawn.isEmpty else { return rows }
        try await db.execute("DELETE FROM push_deliveries WHERE id IN \(db.dialect.list(withdrawn))")
        let gone = Set(withdrawn)
        return try rows.filter { !gone.contains(try $0["id"]) }
    }

    public func finish(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await database.execute("DELETE FROM push_deliveries WHERE id IN \(database.dialect.list(ids))")
    }

    public func retry(_ id: String, at date: Date) async throws {
        try await database.execute("UPDATE push_deliveries SET available_at = \(date.millisecondsSince1970) WHERE id = \(id)")
    }

    public func prune(deviceToken token: String) async throws {
        try await database.transaction { db in
            try await db.execute("DELETE FROM push_deliveries WHERE device_token = \(token)")
            try await db.execute("DELETE FROM devices WHERE token = \(token)")
        }
    }
}

/// A row of `push_outbox`: one push waiting for one recipient; or the cause kept with a row of `push_deliveries`.
struct QueuedPush: Sendable {
    /// The row's id (the chat message's or the notification's id; the delivery's).
    let id: String
    /// The recipient.
    let userId: String
    /// What caused it.
    let kind: PushKind
    /// The room of a chat message or match step.
    let roomId: String?
    /// Who caused it (the message's sender, the member who took the step, the class's writer).
    let senderId: String?
    /// The chat message (a match step's notice for a match push).
    let messageId: String?
    /// The class (of the room, or the alert hit).
    let classId: String?
    /// When the cause was stored, in milliseconds.
    let queuedAt: Int64

    /// Decodes a `push_outbox` row, or a `push_deliveries` row that kept its cause.
    init(row: SQLRow) throws {
        id = try row["id"]
        userId = try row["user_id"]
        kind = PushKind(rawValue: try row["kind"]) ?? .message
        roomId = try row["room_id"]
        senderId = try row["sender_id"]
        messageId = try row["message_id"]
        classId = try row["class_id"]
        queuedAt = try row["queued_at"]
    }
}

/// What deciding and writing a batch of pushes reads, in a few statements for the whole batch.
struct PushContext: Sendable {
    /// A device to push to.
    struct Target: Sendable {
        /// Its push token.
        let token: String
        /// Its platform.
        let platform: DevicePlatform
    }

    /// A chat message as a push shows it.
    struct MessageText: Sendable {
        /// Text, image or a system notice.
        let kind: MessageKind
        /// The (masked) text.
        let text: String?
        /// Whether an operator removed it.
        let removed: Bool
        /// The sender's nickname now.
        let senderNickname: String
    }

    /// The recipients' devices, by user.
    let devices: [String: [Target]]
    /// The recipients with a live chat connection on some node.
    let online: Set<String>
    /// `user|room` for each muted room.
    let mutes: Set<String>
    /// `a|b` for each pair where either blocked the other (both orders present).
    let blocks: Set<String>
    /// The batch's chat messages, by id.
    let messages: [String: MessageText]
    /// The names of the batch's alert classes, by id.
    let classNames: [String: String]
    /// Each recipient's unread messages over all their rooms (the badge).
    let unread: [String: Int]

    /// Reads what `queued` needs.
    static func read(for queued: [QueuedPush], online: @Sendable ([String]) async -> Set<String>, _ db: any SQLExecutor) async throws -> PushContext {
        let dialect = db.dialect
        let userIds = Array(Set(queued.map(\.userId))).sorted()
        var devices: [String: [Target]] = [:]
        for row in try await db.rows("SELECT token, user_id, platform FROM devices WHERE user_id IN \(dialect.list(userIds)) ORDER BY token") {
            guard let platform = DevicePlatform(rawValue: try row["platform"]) else { continue }
            devices[try row["user_id"], default: []].append(Target(token: try row["token"], platform: platform))
        }
        let reachable = userIds.filter { devices[$0] != nil }
        let onlineUsers = reachable.isEmpty ? [] : await online(reachable)
        var mutes: Set<String> = []
        for row in try await db.rows("SELECT user_id, room_id FROM chat_room_mutes WHERE user_id IN \(dialect.list(reachable))") {
            mutes.insert(try row["user_id"] + "|" + row["room_id"])
        }
        var blocks: Set<String> = []
        for row in try await db.rows("""
            SELECT blocker_id, blocked_id FROM blocks WHERE blocker_id IN \(dialect.list(reachable)) OR blocked_id IN \(dialect.list(reachable))
            """) {
            let (blocker, blocked): (String, String) = (try row["blocker_id"], try row["blocked_id"])
            blocks.insert(blocker + "|" + blocked)
            blocks.insert(blocked + "|" + blocker)
        }
        var messages: [String: MessageText] = [:]
        let messageIds = queued.compactMap(\.messageId)
        if !messageIds.isEmpty {
            for row in try await db.rows("""
                SELECT m.id, m.kind, m.text, m.removed_at, u.nickname FROM chat_messages m JOIN users u ON u.id = m.sender_id
                WHERE m.id IN \(dialect.list(messageIds))
                """) {
                messages[try row["id"]] = MessageText(
                    kind: MessageKind(rawValue: try row["kind"]) ?? .text, text: try row["text"],
                    removed: try row.optionalDate("removed_at") != nil, senderNickname: try row["nickname"])
            }
        }
        var classNames: [String: String] = [:]
        let classIds = queued.filter { $0.kind == .alert }.compactMap(\.classId)
        if !classIds.isEmpty {
            for row in try await db.rows("SELECT id, name FROM classes WHERE id IN \(dialect.list(classIds))") {
                classNames[try row["id"]] = try row["name"]
            }
        }
        var unread: [String: Int] = [:]
        for row in try await db.rows("""
            SELECT user_id, CAST(SUM(unread) AS BIGINT) AS unread FROM (
                SELECT seller_id AS user_id, last_seq - seller_read_seq AS unread FROM chat_rooms WHERE seller_id IN \(dialect.list(reachable))
                UNION ALL
                SELECT buyer_id AS user_id, last_seq - buyer_read_seq AS unread FROM chat_rooms WHERE buyer_id IN \(dialect.list(reachable))
            ) rooms GROUP BY user_id
            """) {
            unread[try row["user_id"]] = max(0, try row["unread"] as Int)
        }
        return PushContext(devices: devices, online: onlineUsers, mutes: mutes, blocks: blocks, messages: messages,
                           classNames: classNames, unread: unread)
    }

    /// The push for `push`, or nil when it is not to be sent: no device, the recipient is online, blocks the sender
    /// (or is blocked), muted the room (chat messages), or what caused it is gone.
    func content(for push: QueuedPush) -> PushContent? {
        guard devices[push.userId] != nil, !online.contains(push.userId) else { return nil }
        if let sender = push.senderId, blocks.contains(push.userId + "|" + sender) { return nil }
        let badge = unread[push.userId] ?? 0
        switch push.kind {
        case .message, .match:
            guard let roomId = push.roomId, let messageId = push.messageId, let message = messages[messageId], !message.removed else {
                return nil
            }
            if push.kind == .message, mutes.contains(push.userId + "|" + roomId) { return nil }
            let title = message.senderNickname.isEmpty ? PushText.fallbackTitle : message.senderNickname
            let body = message.kind == .image ? PushText.imageBody : PushText.cut(message.text ?? "")
            return PushContent(kind: push.kind, title: title, body: body, badge: badge, threadId: roomId, collapseId: roomId,
                               data: ["kind": push.kind.rawValue, "roomId": roomId, "messageId": messageId])
        case .alert:
            guard let classId = push.classId, let name = classNames[classId] else { return nil }
            return PushContent(kind: .alert, title: PushText.alertTitle, body: PushText.alertBody(className: name), badge: badge,
                               threadId: "alerts", collapseId: "alert-" + classId, data: ["kind": "alert", "classId": classId])
        }
    }
}
