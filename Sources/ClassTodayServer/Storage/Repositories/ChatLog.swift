import ClassTodayCore
import Foundation

/// The chat tables as a transaction writes them, shared by ``SQLChatRepository`` (sends) and ``SQLMatchRepository``
/// (a match step's system message): locking rooms, appending messages by the rules of ``MessageBatch``, and
/// decoding room and message rows. Every function runs on the executor of the caller's transaction.
///
/// Writers on several PostgreSQL nodes stay consistent through row locks: a writer first locks the rows of its
/// rooms (``lockRooms(_:_:)``, in id order, so that two writers cannot wait for each other), then gives each message
/// its room's `last_seq + 1`, so seqs are unique and gap-free. SQLite's single writer needs no locks. A batch is
/// written with a fixed number of statements whatever its size (group commit stays cheap), its messages bound through
/// ``SQLDialect/rows(_:types:)``: one statement on PostgreSQL (``SQLDialect/hasWritingWith``), two on SQLite.
enum ChatLog {
    /// A planned message's client id was taken by a message stored earlier, which the plan did not know of: the
    /// transaction must roll back (the other messages were written) and the batch be planned again knowing it.
    struct ClientIdTaken: Error {}

    /// Locks the rows of the rooms `ids` until the transaction ends, in id order, and returns the rooms found, by id.
    static func lockRooms(_ ids: [String], _ db: any SQLExecutor) async throws -> [String: ChatRoom] {
        let sorted = Set(ids).sorted()
        var statement: SQLStatement = """
            SELECT * FROM chat_rooms WHERE id IN \(tuple(sorted.map(\.sqlValue))) ORDER BY id \(raw: db.dialect.lockForNoKeyUpdate)
            """
        statement.isCached = sorted.count <= cachedRowCount
        var rooms: [String: ChatRoom] = [:]
        for row in try await db.rows(statement) {
            let room = try room(row: row)
            rooms[room.id] = room
        }
        return rooms
    }

    /// Stores `batch` by the rules of ``MessageBatch`` in `rooms`, which the transaction has locked
    /// (``lockRooms(_:_:)``): earlier messages with the batch's client ids are read first, and the room locks keep
    /// other writers out until commit, so what is read stays true.
    static func append(
        _ batch: [OutgoingMessage], rooms: [String: ChatRoom], at date: Date, _ db: any SQLExecutor
    ) async throws -> [Result<AppendResult, DomainError>] {
        let existing = try await messages(withClientKeys: MessageBatch.clientKeys(of: batch), db)
        let closed = try await closedRooms(rooms, for: batch, db)
        return try await write(MessageBatch(batch, rooms: rooms, closedRooms: closed, existing: existing, at: date), db)
    }

    /// The rooms among `rooms` that take no members' messages, with the reason: their two members blocked one
    /// another (either way), or one of them deleted their account. None are read for a batch of system messages only.
    static func closedRooms(_ rooms: [String: ChatRoom], for batch: [OutgoingMessage], _ db: any SQLExecutor) async throws -> [String: DomainError] {
        guard !rooms.isEmpty, batch.contains(where: { $0.kind != .system }) else { return [:] }
        let sorted = rooms.keys.sorted()
        let deleted: SQLStatement = "EXISTS (SELECT 1 FROM users u WHERE u.id IN (r.seller_id, r.buyer_id) AND u.deleted_at IS NOT NULL)"
        var statement: SQLStatement = """
            SELECT r.id, CASE WHEN \(deleted) THEN 1 ELSE 0 END AS deleted FROM chat_rooms r
            WHERE r.id IN \(tuple(sorted.map(\.sqlValue))) AND (\(BlockSQL.between("r.seller_id", "r.buyer_id")) OR \(deleted))
            """
        statement.isCached = sorted.count <= cachedRowCount
        var closed: [String: DomainError] = [:]
        for row in try await db.rows(statement) {
            closed[try row["id"]] = try row["deleted"] as Int == 1 ? AccountDeletion.counterpartDeleted : BlockRules.blocked
        }
        return closed
    }

    /// Inserts the planned messages and updates their rooms; returns the plan's results. Throws ``ClientIdTaken``
    /// when the unique index on (room, sender, client id) finds a planned client id already stored.
    static func write(_ plan: MessageBatch, _ db: any SQLExecutor) async throws -> [Result<AppendResult, DomainError>] {
        guard !plan.stored.isEmpty else { return plan.results }
        let dialect = db.dialect
        let messages: SQLStatement = """
            m(id, room_id, seq, sender_id, kind, text, image_id, client_id, sent_at) AS (\(dialect.rows(plan.stored.map { message in
                [message.id.sqlValue, message.roomId.sqlValue, message.seq.sqlValue, message.senderId.sqlValue,
                 message.kind.rawValue.sqlValue, message.text.sqlValue, message.imageId.sqlValue, message.clientId.sqlValue,
                 message.sentAt.millisecondsSince1970.sqlValue]
            }, types: [.text, .text, .integer, .text, .text, .text, .text, .text, .integer])))
            """
        // The rooms are bound as VALUES on both backends: PostgreSQL then knows how many there are and updates each by
        // its key (it guesses 100 rows for a JSON row source, and joins those by scanning all of `chat_rooms`).
        let rooms: SQLStatement = """
            c(id, last_seq, last_activity_at, seller_read_seq, buyer_read_seq) AS (\(values(plan.changedRooms.map { room in
                [room.id.sqlValue, room.lastSeq.sqlValue, room.lastActivityAt.millisecondsSince1970.sqlValue,
                 room.sellerReadSeq.sqlValue, room.buyerReadSeq.sqlValue]
            })))
            """
        let insert: SQLStatement = """
            INSERT INTO chat_messages (id, room_id, seq, sender_id, kind, text, image_id, client_id, sent_at)
            SELECT * FROM m WHERE true ON CONFLICT (room_id, sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
            """
        let update: SQLStatement = """
            UPDATE chat_rooms SET last_seq = c.last_seq, last_activity_at = c.last_activity_at,
                seller_read_seq = c.seller_read_seq, buyer_read_seq = c.buyer_read_seq
            FROM c WHERE chat_rooms.id = c.id
            """
        let isCached = plan.stored.count <= cachedRowCount && plan.changedRooms.count <= cachedRowCount
        let inserted: Int
        if dialect.hasWritingWith {
            var statement: SQLStatement = """
                WITH \(messages), \(rooms), inserted AS (\(insert) RETURNING 1), changed AS (\(update)),
                pushed AS (\(raw: queuePushes(from: "m")))
                SELECT count(*) AS inserted FROM inserted
                """
            statement.isCached = isCached
            inserted = try await db.row(statement)?["inserted"] ?? 0
        } else {
            var insertMessages: SQLStatement = "WITH \(messages) \(insert)"
            var updateRooms: SQLStatement = "WITH \(rooms) \(update)"
            insertMessages.isCached = isCached
            updateRooms.isCached = isCached
            inserted = try await db.execute(insertMessages)
            try await db.execute(updateRooms)
            var queue: SQLStatement = """
                WITH m AS (SELECT * FROM chat_messages WHERE id IN \(dialect.list(plan.stored.map(\.id)))) \(raw: queuePushes(from: "m"))
                """
            queue.isCached = isCached
            try await db.execute(queue)
        }
        guard inserted == plan.stored.count else { throw ClientIdTaken() }
        return plan.results
    }

    /// An INSERT queueing a push (``PushQueue``) for the other member of each message of `source` (a table or CTE
    /// with the `chat_messages` columns), in the transaction storing them: a chat push for text and image messages,
    /// a match push for system messages (a match step's notice, whose sender is the member who took the step).
    /// Members without a device get no row.
    private static func queuePushes(from source: String) -> String {
        """
        INSERT INTO push_outbox (id, user_id, kind, room_id, sender_id, message_id, class_id, queued_at)
        SELECT p.message_id, p.user_id, p.kind, p.room_id, p.sender_id, p.message_id, p.class_id, p.queued_at FROM (
            SELECT \(source).id AS message_id, \(source).room_id, \(source).sender_id, \(source).sent_at AS queued_at, r.class_id,
                CASE WHEN \(source).kind = 'system' THEN 'match' ELSE 'message' END AS kind,
                CASE WHEN \(source).sender_id = r.seller_id THEN r.buyer_id ELSE r.seller_id END AS user_id
            FROM \(source) JOIN chat_rooms r ON r.id = \(source).room_id
        ) p WHERE EXISTS (SELECT 1 FROM devices d WHERE d.user_id = p.user_id)
        """
    }

    /// The stored messages with these (room, sender, client id) keys.
    private static func messages(withClientKeys keys: [MessageBatch.ClientKey], _ db: any SQLExecutor) async throws -> [ChatMessage] {
        guard !keys.isEmpty else { return [] }
        var statement: SQLStatement = """
            WITH k(room_id, sender_id, client_id) AS (\(values(keys.map { [$0.roomId.sqlValue, $0.senderId.sqlValue, $0.clientId.sqlValue] })))
            SELECT m.* FROM k JOIN chat_messages m ON m.room_id = k.room_id AND m.sender_id = k.sender_id AND m.client_id = k.client_id
            """
        statement.isCached = keys.count <= cachedRowCount
        return try await db.rows(statement).map { try message(row: $0) }
    }

    /// Decodes a `chat_rooms` row.
    static func room(row: SQLRow) throws -> ChatRoom {
        ChatRoom(id: try row["id"], classId: try row["class_id"], sellerId: try row["seller_id"], buyerId: try row["buyer_id"],
                 createdAt: try row.date("created_at"), lastSeq: try row["last_seq"], lastActivityAt: try row.date("last_activity_at"),
                 sellerReadSeq: try row["seller_read_seq"], buyerReadSeq: try row["buyer_read_seq"])
    }

    /// Decodes a message from columns named `prefix` + the `chat_messages` column names, in room `roomId` (read from
    /// `room_id` when nil).
    static func message(row: SQLRow, prefix: String = "", roomId: String? = nil) throws -> ChatMessage {
        let kind: String = try row[prefix + "kind"]
        return ChatMessage(
            id: try row[prefix + "id"], roomId: try roomId ?? row["room_id"], seq: try row[prefix + "seq"],
            senderId: try row[prefix + "sender_id"], kind: MessageKind(rawValue: kind) ?? .text, text: try row[prefix + "text"],
            imageId: try row[prefix + "image_id"], clientId: try row[prefix + "client_id"], sentAt: try row.date(prefix + "sent_at"),
            removed: try row.optionalDate(prefix + "removed_at") != nil)
    }

    /// Statements for batches of at most this many rows keep their prepared form on SQLite (the usual sizes);
    /// larger ones vary too much to be worth keeping.
    private static let cachedRowCount = 16

    /// `(?, ?, ...)` binding `values`.
    private static func tuple(_ values: [SQLValue]) -> SQLStatement {
        SQLStatement(sql: "(" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")", values: values)
    }

    /// `VALUES (?, ...), (?, ...)` binding `rows`, all of one length, on both backends: for row sources that are
    /// joined by key, whose row count the planner should know.
    private static func values(_ rows: [[SQLValue]]) -> SQLStatement {
        var statement: SQLStatement = "VALUES "
        statement.append(rows.map(tuple).joined(with: ", "))
        return statement
    }
}
