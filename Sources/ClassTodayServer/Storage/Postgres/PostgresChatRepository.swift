import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Rooms, messages and read positions stored in PostgreSQL; the port of ``SQLiteChatRepository``. A batch of
/// messages is one transaction (group commit) of four round trips: begin, lock the rooms, one statement that
/// inserts every message and updates every room, commit.
///
/// Writers on several nodes stay consistent through row locks: a batch first locks the rows of its rooms (in id
/// order, so that two batches cannot wait for each other), then gives each message its room's `last_seq + 1`
/// (``MessageBatch``), so seqs are unique and gap-free. A repeated client id finds the first message: the unique
/// index on (room, sender, client id) catches it, and the batch is planned again knowing the stored messages.
public struct PostgresChatRepository: ChatRepository {
    private let client: PostgresClient
    private let logger = Logger(label: "classtoday.postgres.chat")

    /// Creates the repository over an open store.
    public init(store: PostgresStore) {
        self.client = store.client
    }

    public func openRoom(classId: String, userId: String, at date: Date) async throws -> (room: ChatRoom, created: Bool) {
        if let room = try await existingRoom(classId: classId, visitorId: userId) {
            return (room, false)
        }
        guard let classRow = try await PostgresRows.all(client.query(
            "SELECT type, writer_id FROM classes WHERE id = \(classId) AND deleted_at IS NULL", logger: logger)).first
        else { throw DomainError.notFound("class") }
        let writerId = try classRow["writer_id"].decode(String.self)
        guard writerId != userId else { throw DomainError.invalid("classId", "you cannot open a chat on your own class") }
        let type = ClassType(rawValue: try classRow["type"].decode(String.self)) ?? .sell
        let (sellerId, buyerId) = type == .sell ? (writerId, userId) : (userId, writerId)
        let room = ChatRoom(id: Identifier.make(at: date), classId: classId, sellerId: sellerId, buyerId: buyerId, createdAt: date)
        let milliseconds = date.millisecondsSince1970
        let inserted = try await PostgresRows.all(client.query("""
            INSERT INTO chat_rooms (id, class_id, visitor_id, seller_id, buyer_id, created_at, last_activity_at)
            VALUES (\(room.id), \(classId), \(userId), \(sellerId), \(buyerId), \(milliseconds), \(milliseconds))
            ON CONFLICT (class_id, visitor_id) DO NOTHING
            RETURNING id
            """, logger: logger))
        if inserted.isEmpty {
            // Opened at the same moment elsewhere: that room is the one.
            guard let existing = try await existingRoom(classId: classId, visitorId: userId) else { throw DomainError.notFound("room") }
            return (existing, false)
        }
        return (room, true)
    }

    /// The room `visitorId` opened on `classId`, if any.
    private func existingRoom(classId: String, visitorId: String) async throws -> ChatRoom? {
        try await PostgresRows.all(client.query(
            "SELECT * FROM chat_rooms WHERE class_id = \(classId) AND visitor_id = \(visitorId)", logger: logger)
        ).first.map(PostgresRows.room)
    }

    public func room(id: String) async throws -> ChatRoom? {
        try await PostgresRows.all(client.query("SELECT * FROM chat_rooms WHERE id = \(id)", logger: logger))
            .first.map(PostgresRows.room)
    }

    public func summary(roomId: String) async throws -> RoomSummary? {
        var binds = PostgresRows.Binds()
        let room = binds.bind(roomId)
        let sql = ChatRoomSummaryQuery.select(rooms: "SELECT * FROM chat_rooms WHERE id = \(room)")
        return try await PostgresRows.all(client.query(binds.query(sql), logger: logger)).first.map(Self.summary(row:))
    }

    public func rooms(of userId: String, page: PageRequest) async throws -> Page<RoomSummary> {
        var binds = PostgresRows.Binds()
        let user = binds.bind(userId)
        let condition = binds.newestFirst(after: page.after, key: "r.last_activity_at", id: "r.id").map { "WHERE " + $0 } ?? ""
        let limit = binds.bind(page.limit + 1)
        let sql = ChatRoomSummaryQuery.select(rooms: ChatRoomSummaryQuery.memberRooms(user: user))
            + " \(condition) ORDER BY r.last_activity_at DESC, r.id DESC LIMIT \(limit)"
        let rows = try await PostgresRows.all(client.query(binds.query(sql), logger: logger))
        let summaries = try rows.prefix(page.limit).map(Self.summary(row:))
        let next = rows.count > page.limit ? summaries.last.map {
            PageCursor(ordering: "activity", values: [.int($0.room.lastActivityAt.millisecondsSince1970), .string($0.room.id)]).encoded
        } : nil
        return Page(items: summaries, nextCursor: next)
    }

    public func memberRooms(of userId: String) async throws -> [ChatRoom] {
        var binds = PostgresRows.Binds()
        let user = binds.bind(userId)
        return try await PostgresRows.all(client.query(binds.query(ChatRoomSummaryQuery.memberRooms(user: user)), logger: logger))
            .map(PostgresRows.room)
    }

    public func history(roomId: String, beforeSeq: Int?, page: PageRequest) async throws -> Page<ChatMessage> {
        let below = page.after?.values.first?.int.map(Int.init) ?? beforeSeq ?? Int.max
        let rows = try await PostgresRows.all(client.query("""
            SELECT * FROM chat_messages WHERE room_id = \(roomId) AND seq < \(below) ORDER BY seq DESC LIMIT \(page.limit + 1)
            """, logger: logger))
        let messages = try rows.prefix(page.limit).map { try PostgresRows.message($0) }
        let next = rows.count > page.limit ? messages.last.map { PageCursor(ordering: "seq", values: [.int(Int64($0.seq))]).encoded } : nil
        return Page(items: messages, nextCursor: next)
    }

    public func messages(roomId: String, afterSeq: Int, limit: Int) async throws -> [ChatMessage] {
        try await PostgresRows.all(client.query(
            "SELECT * FROM chat_messages WHERE room_id = \(roomId) AND seq > \(afterSeq) ORDER BY seq LIMIT \(limit)",
            logger: logger)
        ).map { try PostgresRows.message($0) }
    }

    public func append(_ batch: [OutgoingMessage], at date: Date) async throws -> [Result<AppendResult, DomainError>] {
        guard !batch.isEmpty else { return [] }
        do {
            // Resends are rare: a batch is first planned as if none of its client ids were taken, and a taken one
            // (found by the unique index) rolls the transaction back and sends the batch down the careful path.
            return try await PostgresRows.transaction(client, logger: logger) { [logger] connection in
                let rooms = try await Self.lockRooms(batch.map(\.roomId), connection, logger)
                return try await Self.write(MessageBatch(batch, rooms: rooms, existing: [], at: date), connection, logger)
            }
        } catch is ClientIdTaken {
            return try await PostgresRows.transaction(client, logger: logger) { [logger] connection in
                let rooms = try await Self.lockRooms(batch.map(\.roomId), connection, logger)
                return try await Self.append(batch, rooms: rooms, at: date, connection, logger)
            }
        }
    }

    public func markRead(roomId: String, userId: String, seq: Int) async throws -> Int {
        try await PostgresRows.transaction(client, logger: logger) { [logger] connection in
            guard let room = try await Self.lockRooms([roomId], connection, logger)[roomId] else { throw DomainError.notFound("room") }
            try room.checkMember(userId, to: "read it")
            let column = userId == room.sellerId ? "seller_read_seq" : "buyer_read_seq"
            let position = max(room.readSeq(of: userId), min(seq, room.lastSeq))
            try await connection.query("UPDATE chat_rooms SET \(unescaped: column) = \(position) WHERE id = \(roomId)", logger: logger)
            return position
        }
    }

    /// Locks the rows of the rooms `ids` for the rest of the transaction, in id order, and returns the rooms found
    /// by id. Every writer of messages takes these locks first, which serialises seq allocation per room.
    static func lockRooms(_ ids: [String], _ connection: PostgresConnection, _ logger: Logger) async throws -> [String: ChatRoom] {
        let sorted = Array(Set(ids)).sorted()
        let rows = try await PostgresRows.all(connection.query(
            "SELECT * FROM chat_rooms WHERE id = ANY(\(sorted)) ORDER BY id FOR NO KEY UPDATE", logger: logger))
        var rooms: [String: ChatRoom] = [:]
        for row in rows {
            let room = try PostgresRows.room(row)
            rooms[room.id] = room
        }
        return rooms
    }

    /// Stores a batch of messages by the rules of ``MessageBatch`` inside the caller's transaction (a match step
    /// with its system message, or a batch of sends with a repeated client id), which holds the locks of their rooms
    /// from ``lockRooms(_:_:_:)``; `rooms` are the rooms locked. Earlier messages with the batch's client ids are
    /// read first; the room locks keep other writers out of these rooms, so what is read stays true until commit.
    static func append(
        _ batch: [OutgoingMessage], rooms: [String: ChatRoom], at date: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Result<AppendResult, DomainError>] {
        let keys = MessageBatch.clientKeys(of: batch)
        var existing: [ChatMessage] = []
        if !keys.isEmpty {
            existing = try await PostgresRows.all(connection.query("""
                SELECT m.* FROM chat_messages m
                JOIN unnest(\(keys.map(\.roomId)), \(keys.map(\.senderId)), \(keys.map(\.clientId))) AS k(room_id, sender_id, client_id)
                    ON m.room_id = k.room_id AND m.sender_id = k.sender_id AND m.client_id = k.client_id
                """, logger: logger)).map { try PostgresRows.message($0) }
        }
        return try await write(MessageBatch(batch, rooms: rooms, existing: existing, at: date), connection, logger)
    }

    /// A planned message's client id was taken by a message stored earlier, which the plan did not know of.
    private struct ClientIdTaken: Error {}

    /// Inserts the planned messages and updates their rooms, in one statement; returns the plan's results.
    /// Throws ``ClientIdTaken`` when the unique index finds a planned client id already stored (the caller's
    /// transaction must then roll back: the other messages were written).
    private static func write(
        _ plan: MessageBatch, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Result<AppendResult, DomainError>] {
        guard !plan.stored.isEmpty else { return plan.results }
        let messages = MessageJSON.array(plan.stored)
        let rooms = plan.changedRooms
        let counted = try await PostgresRows.all(connection.query("""
            WITH inserted AS (
                INSERT INTO chat_messages (id, room_id, seq, sender_id, kind, text, image_id, client_id, sent_at)
                SELECT id, "roomId", seq, "senderId", kind, text, "imageId", "clientId", "sentAt"
                FROM jsonb_to_recordset(\(messages)::jsonb) AS m(id text, "roomId" text, seq bigint, "senderId" text, kind text,
                    text text, "imageId" text, "clientId" text, "sentAt" bigint)
                ON CONFLICT (room_id, sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
                RETURNING 1
            ), changed AS (
                UPDATE chat_rooms r SET last_seq = c.last_seq, last_activity_at = c.last_activity_at,
                    seller_read_seq = c.seller_read_seq, buyer_read_seq = c.buyer_read_seq
                FROM unnest(\(rooms.map(\.id)), \(rooms.map(\.lastSeq)), \(rooms.map(\.lastActivityAt.millisecondsSince1970)),
                    \(rooms.map(\.sellerReadSeq)), \(rooms.map(\.buyerReadSeq)))
                    AS c(id, last_seq, last_activity_at, seller_read_seq, buyer_read_seq)
                WHERE r.id = c.id
            )
            SELECT count(*) AS inserted FROM inserted
            """, logger: logger))
        guard try counted.first?["inserted"].decode(Int.self) == plan.stored.count else { throw ClientIdTaken() }
        return plan.results
    }

    private static func summary(row: PostgresRandomAccessRow) throws -> RoomSummary {
        func person(_ prefix: String, _ id: String) throws -> WriterSummary {
            WriterSummary(
                id: id, nickname: try row[prefix + "_nickname"].decode(String.self),
                profileImageId: try row[prefix + "_image"].decode(String?.self),
                rating: PostgresRows.rating(sum: try row[prefix + "_sum"].decode(Double.self), count: try row[prefix + "_count"].decode(Int.self)))
        }
        let room = try PostgresRows.room(row)
        let hasMessage = try row["m_id"].decode(String?.self) != nil
        return RoomSummary(
            room: room, classId: room.classId, className: try row["class_name"].decode(String.self),
            classType: ClassType(rawValue: try row["class_type"].decode(String.self)) ?? .sell,
            classStatus: ClassStatus(rawValue: try row["class_status"].decode(String.self)) ?? .closed,
            seller: try person("s", room.sellerId), buyer: try person("b", room.buyerId),
            lastMessage: hasMessage ? try PostgresRows.message(row, prefix: "m_", roomId: room.id) : nil)
    }
}
