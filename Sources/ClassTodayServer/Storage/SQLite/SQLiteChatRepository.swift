import ClassTodayCore
import Foundation
import GRDB

/// Rooms, messages and read positions stored in the embedded SQLite database. A batch of messages is one write
/// transaction, so that one disk flush makes many messages durable (group commit).
public struct SQLiteChatRepository: ChatRepository {
    private let writer: DatabasePool

    /// Creates the repository over an open store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    public func openRoom(classId: String, userId: String, at date: Date) async throws -> (room: ChatRoom, created: Bool) {
        try await writer.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM chat_rooms WHERE class_id = ? AND visitor_id = ?", arguments: [classId, userId]) {
                return (Self.room(row: row), false)
            }
            guard let classRow = try Row.fetchOne(db, sql: "SELECT type, writer_id FROM classes WHERE id = ? AND deleted_at IS NULL",
                                                  arguments: [classId])
            else { throw DomainError.notFound("class") }
            let writerId: String = classRow["writer_id"]
            guard writerId != userId else { throw DomainError.invalid("classId", "you cannot open a chat on your own class") }
            let type = ClassType(rawValue: classRow["type"]) ?? .sell
            let (sellerId, buyerId) = type == .sell ? (writerId, userId) : (userId, writerId)
            let room = ChatRoom(id: Identifier.make(at: date), classId: classId, sellerId: sellerId, buyerId: buyerId, createdAt: date)
            try db.execute(sql: """
                INSERT INTO chat_rooms (id, class_id, visitor_id, seller_id, buyer_id, created_at, last_activity_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [room.id, classId, userId, sellerId, buyerId, date.millisecondsSince1970, date.millisecondsSince1970])
            return (room, true)
        }
    }

    public func room(id: String) async throws -> ChatRoom? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM chat_rooms WHERE id = ?", arguments: [id]).map(Self.room(row:))
        }
    }

    public func summary(roomId: String) async throws -> RoomSummary? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: ChatRoomSummaryQuery.select(rooms: "SELECT * FROM chat_rooms WHERE id = :room"),
                             arguments: ["room": roomId]).map(Self.summary(row:))
        }
    }

    public func rooms(of userId: String, page: PageRequest) async throws -> Page<RoomSummary> {
        try await writer.read { db in
            var condition = ""
            var arguments: [String: (any DatabaseValueConvertible)?] = ["user": userId, "limit": page.limit + 1]
            if let after = page.after, let activity = after.values.first?.int, let id = after.values.last?.string {
                condition = "WHERE r.last_activity_at < :activity OR (r.last_activity_at = :activity AND r.id < :id)"
                arguments["activity"] = activity
                arguments["id"] = id
            }
            let rows = try Row.fetchAll(db, sql: ChatRoomSummaryQuery.select(rooms: ChatRoomSummaryQuery.memberRooms(user: ":user"))
                + " \(condition) ORDER BY r.last_activity_at DESC, r.id DESC LIMIT :limit", arguments: StatementArguments(arguments))
            let summaries = rows.prefix(page.limit).map(Self.summary(row:))
            let next = rows.count > page.limit ? summaries.last.map {
                PageCursor(ordering: "activity", values: [.int($0.room.lastActivityAt.millisecondsSince1970), .string($0.room.id)]).encoded
            } : nil
            return Page(items: summaries, nextCursor: next)
        }
    }

    public func memberRooms(of userId: String) async throws -> [ChatRoom] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: ChatRoomSummaryQuery.memberRooms(user: ":user"), arguments: ["user": userId]).map(Self.room(row:))
        }
    }

    public func history(roomId: String, beforeSeq: Int?, page: PageRequest) async throws -> Page<ChatMessage> {
        try await writer.read { db in
            let below = page.after?.values.first?.int.map(Int.init) ?? beforeSeq ?? Int.max
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM chat_messages WHERE room_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                                        arguments: [roomId, below, page.limit + 1])
            let messages = rows.prefix(page.limit).map { Self.message(row: $0) }
            let next = rows.count > page.limit ? messages.last.map { PageCursor(ordering: "seq", values: [.int(Int64($0.seq))]).encoded } : nil
            return Page(items: messages, nextCursor: next)
        }
    }

    public func messages(roomId: String, afterSeq: Int, limit: Int) async throws -> [ChatMessage] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM chat_messages WHERE room_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                             arguments: [roomId, afterSeq, limit]).map { Self.message(row: $0) }
        }
    }

    public func append(_ batch: [OutgoingMessage], at date: Date) async throws -> [Result<AppendResult, DomainError>] {
        try await writer.write { db in try Self.append(batch, at: date, db) }
    }

    public func markRead(roomId: String, userId: String, seq: Int) async throws -> Int {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM chat_rooms WHERE id = ?", arguments: [roomId]) else {
                throw DomainError.notFound("room")
            }
            let room = Self.room(row: row)
            try room.checkMember(userId, to: "read it")
            let column = userId == room.sellerId ? "seller_read_seq" : "buyer_read_seq"
            let position = max(room.readSeq(of: userId), min(seq, room.lastSeq))
            try db.execute(sql: "UPDATE chat_rooms SET \(column) = ? WHERE id = ?", arguments: [position, roomId])
            return position
        }
    }

    /// Stores a batch of messages inside the caller's transaction (a batch of sends, or a match step with its
    /// system message), by the rules of ``MessageBatch``.
    static func append(_ batch: [OutgoingMessage], at date: Date, _ db: Database) throws -> [Result<AppendResult, DomainError>] {
        var rooms: [String: ChatRoom] = [:]
        for roomId in Set(batch.map(\.roomId)) {
            if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_rooms WHERE id = ?"), arguments: [roomId]) {
                rooms[roomId] = room(row: row)
            }
        }
        let existing = try MessageBatch.clientKeys(of: batch).compactMap { key in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_messages WHERE room_id = ? AND sender_id = ? AND client_id = ?"),
                             arguments: [key.roomId, key.senderId, key.clientId]).map { message(row: $0) }
        }
        let plan = MessageBatch(batch, rooms: rooms, existing: existing, at: date)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO chat_messages (id, room_id, seq, sender_id, kind, text, image_id, client_id, sent_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for message in plan.stored {
            try insert.execute(arguments: [message.id, message.roomId, message.seq, message.senderId, message.kind.rawValue, message.text,
                                           message.imageId, message.clientId, message.sentAt.millisecondsSince1970])
        }
        let update = try db.cachedStatement(sql: """
            UPDATE chat_rooms SET last_seq = ?, last_activity_at = ?, seller_read_seq = ?, buyer_read_seq = ? WHERE id = ?
            """)
        for room in plan.changedRooms {
            try update.execute(arguments: [room.lastSeq, room.lastActivityAt.millisecondsSince1970, room.sellerReadSeq,
                                           room.buyerReadSeq, room.id])
        }
        return plan.results
    }

    static func room(row: Row) -> ChatRoom {
        ChatRoom(id: row["id"], classId: row["class_id"], sellerId: row["seller_id"], buyerId: row["buyer_id"],
                 createdAt: Date(millisecondsSince1970: row["created_at"]), lastSeq: row["last_seq"],
                 lastActivityAt: Date(millisecondsSince1970: row["last_activity_at"]), sellerReadSeq: row["seller_read_seq"],
                 buyerReadSeq: row["buyer_read_seq"])
    }

    /// Decodes a message from columns named `prefix` + the `chat_messages` column names, in room `roomId`
    /// (read from `room_id` when nil).
    static func message(row: Row, prefix: String = "", roomId: String? = nil) -> ChatMessage {
        ChatMessage(id: row[prefix + "id"], roomId: roomId ?? row["room_id"], seq: row[prefix + "seq"],
                    senderId: row[prefix + "sender_id"], kind: MessageKind(rawValue: row[prefix + "kind"]) ?? .text,
                    text: row[prefix + "text"], imageId: row[prefix + "image_id"], clientId: row[prefix + "client_id"],
                    sentAt: Date(millisecondsSince1970: row[prefix + "sent_at"]))
    }

    private static func summary(row: Row) -> RoomSummary {
        func person(_ prefix: String, _ id: String) -> WriterSummary {
            let count: Int = row[prefix + "_count"]
            let sum: Double = row[prefix + "_sum"]
            return WriterSummary(id: id, nickname: row[prefix + "_nickname"], profileImageId: row[prefix + "_image"],
                                 rating: Rating(average: count == 0 ? 0 : sum / Double(count), count: count))
        }
        let room = Self.room(row: row)
        let hasMessage = (row["m_id"] as String?) != nil
        return RoomSummary(
            room: room, classId: room.classId, className: row["class_name"], classType: ClassType(rawValue: row["class_type"]) ?? .sell,
            classStatus: ClassStatus(rawValue: row["class_status"]) ?? .closed, seller: person("s", room.sellerId),
            buyer: person("b", room.buyerId), lastMessage: hasMessage ? message(row: row, prefix: "m_", roomId: room.id) : nil)
    }
}
