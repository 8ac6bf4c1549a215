import ClassTodayCore
import Foundation

/// Rooms, messages and read positions, on either backend. A batch of messages is one transaction, so that one
/// commit (one disk flush on SQLite) makes many messages durable (group commit); how its rooms are locked and its
/// messages written is ``ChatLog``'s.
///
/// Resends are rare: a batch is first planned as if none of its client ids were taken, and a taken one (found by the
/// unique index) rolls the transaction back and sends the batch down the careful path, which reads the earlier
/// messages first.
public struct SQLChatRepository: ChatRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func openRoom(classId: String, userId: String, at date: Date) async throws -> (room: ChatRoom, created: Bool) {
        try await database.transaction { db in
            if let room = try await Self.room(classId: classId, visitorId: userId, db) {
                return (room, false)
            }
            // A hidden class, or one of a suspended writer, takes no new room.
            guard let row = try await db.row("""
                SELECT \(raw: ClassViewQuery.listingColumns) FROM classes c
                WHERE c.id = \(classId) AND c.deleted_at IS NULL AND \(ClassModeration.visible(at: date))
                """) else {
                throw DomainError.notFound("class")
            }
            let listing = try ClassListing(row: row)
            try await BlockSQL.check(userId, listing.writerId, db)
            let room = try ChatRoom.open(id: Identifier.make(at: date), on: listing, by: userId, at: date)
            let milliseconds = date.millisecondsSince1970
            let inserted = try await db.rows("""
                INSERT INTO chat_rooms (id, class_id, visitor_id, seller_id, buyer_id, created_at, last_activity_at)
                VALUES (\(room.id), \(classId), \(userId), \(room.sellerId), \(room.buyerId), \(milliseconds), \(milliseconds))
                ON CONFLICT (class_id, visitor_id) DO NOTHING
                RETURNING id
                """)
            guard inserted.isEmpty else { return (room, true) }
            // Opened at the same moment on another node: that room is the one.
            guard let existing = try await Self.room(classId: classId, visitorId: userId, db) else { throw DomainError.notFound("room") }
            return (existing, false)
        }
    }

    /// The room `visitorId` opened on `classId`, if any.
    private static func room(classId: String, visitorId: String, _ db: any SQLExecutor) async throws -> ChatRoom? {
        try await db.row("SELECT * FROM chat_rooms WHERE class_id = \(classId) AND visitor_id = \(visitorId)").map(ChatLog.room(row:))
    }

    public func room(id: String) async throws -> ChatRoom? {
        try await database.row("SELECT * FROM chat_rooms WHERE id = \(id)").map(ChatLog.room(row:))
    }

    public func summary(roomId: String) async throws -> RoomSummary? {
        try await database.row(Self.summaries(of: "SELECT * FROM chat_rooms WHERE id = \(roomId)")).map(Self.summary(row:))
    }

    public func rooms(of userId: String, page: PageRequest) async throws -> Page<RoomSummary> {
        var statement = Self.summaries(of: Self.memberRooms(of: userId))
        if let after = page.after, let activity = after.values.first?.int, let id = after.values.last?.string {
            statement.append(" WHERE r.last_activity_at < \(activity) OR (r.last_activity_at = \(activity) AND r.id < \(id))")
        }
        statement.append(" ORDER BY r.last_activity_at DESC, r.id DESC LIMIT \(page.limit + 1)")
        let rows = try await database.rows(statement)
        let summaries = try rows.prefix(page.limit).map(Self.summary(row:))
        let next = rows.count > page.limit ? summaries.last.map {
            PageCursor(ordering: "activity", values: [.int($0.room.lastActivityAt.millisecondsSince1970), .string($0.room.id)]).encoded
        } : nil
        return Page(items: summaries, nextCursor: next)
    }

    public func memberRooms(of userId: String) async throws -> [ChatRoom] {
        try await database.rows(Self.memberRooms(of: userId)).map(ChatLog.room(row:))
    }

    public func history(roomId: String, beforeSeq: Int?, page: PageRequest) async throws -> Page<ChatMessage> {
        let below = page.after?.values.first?.int.map(Int.init) ?? beforeSeq ?? Int.max
        let rows = try await database.rows("""
            SELECT * FROM chat_messages WHERE room_id = \(roomId) AND seq < \(below) ORDER BY seq DESC LIMIT \(page.limit + 1)
            """)
        let messages = try rows.prefix(page.limit).map { try ChatLog.message(row: $0) }
        let next = rows.count > page.limit ? messages.last.map { PageCursor(ordering: "seq", values: [.int(Int64($0.seq))]).encoded } : nil
        return Page(items: messages, nextCursor: next)
    }

    public func messages(roomId: String, afterSeq: Int, limit: Int) async throws -> [ChatMessage] {
        try await database.rows("SELECT * FROM chat_messages WHERE room_id = \(roomId) AND seq > \(afterSeq) ORDER BY seq LIMIT \(limit)")
            .map { try ChatLog.message(row: $0) }
    }

    public func append(_ batch: [OutgoingMessage], at date: Date) async throws -> [Result<AppendResult, DomainError>] {
        guard !batch.isEmpty else { return [] }
        do {
            return try await database.transaction { db in
                let rooms = try await ChatLog.lockRooms(batch.map(\.roomId), db)
                let closed = try await ChatLog.closedRooms(rooms, for: batch, db)
                return try await ChatLog.write(MessageBatch(batch, rooms: rooms, closedRooms: closed, existing: [], at: date), db)
            }
        } catch is ChatLog.ClientIdTaken {
            return try await database.transaction { db in
                let rooms = try await ChatLog.lockRooms(batch.map(\.roomId), db)
                return try await ChatLog.append(batch, rooms: rooms, at: date, db)
            }
        }
    }

    public func markRead(roomId: String, userId: String, seq: Int) async throws -> Int {
        try await database.transaction { db in
            guard let room = try await ChatLog.lockRooms([roomId], db)[roomId] else { throw DomainError.notFound("room") }
            try room.checkMember(userId, to: "read it")
            let column = userId == room.sellerId ? "seller_read_seq" : "buyer_read_seq"
            let position = max(room.readSeq(of: userId), min(seq, room.lastSeq))
            try await db.execute("UPDATE chat_rooms SET \(raw: column) = \(position) WHERE id = \(roomId)")
            return position
        }
    }

    /// The `chat_rooms` rows of every room `userId` is a member of: one index lookup per role.
    private static func memberRooms(of userId: String) -> SQLStatement {
        "SELECT * FROM chat_rooms WHERE seller_id = \(userId) UNION ALL SELECT * FROM chat_rooms WHERE buyer_id = \(userId)"
    }

    /// The summaries of the rooms that `rooms` selects (`chat_rooms` rows, aliased `r`): each with its class (and the
    /// class's image ids, the JSON list both backends keep beside a listing), both members and the last message, in the
    /// columns ``summary(row:)`` reads.
    private static func summaries(of rooms: SQLStatement) -> SQLStatement {
        """
        SELECT r.*, c.name AS class_name, c.type AS class_type, c.status AS class_status, c.image_ids AS class_image_ids,
            s.nickname AS s_nickname, s.profile_image_id AS s_image, s.rating_sum AS s_sum, s.rating_count AS s_count,
            b.nickname AS b_nickname, b.profile_image_id AS b_image, b.rating_sum AS b_sum, b.rating_count AS b_count,
            m.id AS m_id, m.seq AS m_seq, m.sender_id AS m_sender_id, m.kind AS m_kind, m.text AS m_text,
            m.image_id AS m_image_id, m.client_id AS m_client_id, m.sent_at AS m_sent_at, m.removed_at AS m_removed_at
        FROM (\(rooms)) r
        JOIN classes c ON c.id = r.class_id
        JOIN users s ON s.id = r.seller_id
        JOIN users b ON b.id = r.buyer_id
        LEFT JOIN chat_messages m ON m.room_id = r.id AND m.seq = r.last_seq
        """
    }

    private static func summary(row: SQLRow) throws -> RoomSummary {
        func person(_ prefix: String, _ id: String) throws -> WriterSummary {
            WriterSummary(id: id, nickname: try row[prefix + "_nickname"], profileImageId: try row[prefix + "_image"],
                          rating: try row.rating(sum: prefix + "_sum", count: prefix + "_count"))
        }
        let room = try ChatLog.room(row: row)
        let lastMessageId: String? = try row["m_id"]
        return RoomSummary(
            room: room, classId: room.classId, className: try row["class_name"],
            classType: ClassType(rawValue: try row["class_type"]) ?? .sell,
            classStatus: ClassStatus(rawValue: try row["class_status"]) ?? .closed,
            classImageId: StoredList.decodeStrings(try row["class_image_ids"]).first,
            seller: try person("s", room.sellerId), buyer: try person("b", room.buyerId),
            lastMessage: lastMessageId == nil ? nil : try ChatLog.message(row: row, prefix: "m_", roomId: room.id))
    }
}
