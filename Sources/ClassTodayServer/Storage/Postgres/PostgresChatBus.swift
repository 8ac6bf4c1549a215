import ClassTodayCore
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// The chat bus of several nodes sharing one PostgreSQL: events are published with `pg_notify` on one channel
/// and every node's listener connection hears them.
///
/// - Local subscribers get an event at once, without the round trip; a node ignores its own notifications.
/// - Events published while a notification is on its way are sent together: one statement, payloads of many
///   events each.
/// - A payload over ``inlineLimit`` bytes (a long message) travels as a reference, and receiving nodes read the
///   message from the database.
/// - Presence counts connections per (user, node) in `chat_presence`; the node refreshes its rows every
///   ``heartbeat`` and rows not refreshed for ``presenceExpiry`` (a node that died) no longer count.
/// - When the listener connection drops, the node reconnects with backoff and, once listening again, replays
///   every message stored since shortly before the drop. Sessions deliver each seq once, so the replay
///   only fills what was missed; clients can also `sync` at any time.
public final class PostgresChatBus: ChatBus, Service {
    /// The notification channel.
    static let channel = "classtoday_chat"
    /// The largest notification payload (PostgreSQL refuses payloads of 8,000 bytes or more).
    static let inlineLimit = 7_000
    /// The largest event sent inline, leaving room for the envelope; a longer message travels as a reference.
    static let eventLimit = inlineLimit - 200
    /// The most events published together: events published while a notification is on its way wait and go in
    /// the next one (a few payloads sent by one statement).
    static let maximumBatch = 256
    /// How far before a listener drop the replay starts, against clock differences between nodes.
    static let replayMargin: TimeInterval = 5
    /// How often a node refreshes its presence rows.
    static let heartbeat = Duration.seconds(20)
    /// How old presence rows may be and still count.
    static let presenceExpiry: TimeInterval = 60

    private let store: PostgresStore
    private let local = InProcessChatBus()
    private let nodeId: String
    private let notifier: BatchQueue<String, Void>
    private let logger: Logger

    /// A bus over `store`'s server; ``run()`` must run (as a service) for other nodes' events to arrive.
    public init(store: PostgresStore, logger: Logger) {
        let nodeId = UUID().uuidString
        self.store = store
        self.nodeId = nodeId
        self.logger = logger
        self.notifier = BatchQueue(maximumBatch: Self.maximumBatch) { events in
            // Notifications of one statement are delivered together, in order.
            try await store.client.query("""
                SELECT pg_notify(\(Self.channel), payload) FROM unnest(\(Self.payloads(events, node: nodeId))) AS payload
                """, logger: logger)
            return events.map { _ in .success(()) }
        }
    }

    public func subscribe() -> AsyncStream<ChatEvent> {
        local.subscribe()
    }

    public func publish(_ event: ChatEvent) async {
        await local.publish(event)
        do {
            var json = WireEvent(event).json
            if json.utf8.count > Self.eventLimit, case .message(let message, let recipients) = event {
                json = WireEvent.messageReference(roomId: message.roomId, seq: message.seq, recipients: recipients).json
            }
            try await notifier.submit(json)
        } catch {
            // Other nodes miss the live event; the message itself is stored and their clients get it by `sync`.
            logger.error("publishing a chat event to other nodes failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Packs events (as JSON) into as few notification payloads of at most ``inlineLimit`` bytes as their order
    /// allows; each event is at most ``eventLimit`` bytes.
    static func payloads(_ events: [String], node: String) -> [String] {
        let head = #"{"node":"\#(node)","events":["#
        let tail = "]}"
        let envelopeSize = head.utf8.count + tail.utf8.count
        var payloads: [String] = []
        var current: [String] = []
        var size = envelopeSize
        for event in events {
            // Every event after the first of a payload adds a comma.
            if !current.isEmpty, size + 1 + event.utf8.count > inlineLimit {
                payloads.append(head + current.joined(separator: ",") + tail)
                current = []
                size = envelopeSize
            }
            size += (current.isEmpty ? 0 : 1) + event.utf8.count
            current.append(event)
        }
        if !current.isEmpty { payloads.append(head + current.joined(separator: ",") + tail) }
        return payloads
    }

    public func connectionOpened(userId: String) async -> Bool {
        let now = Date()
        do {
            let rows = try await store.client.query("""
                WITH others AS (
                    SELECT COALESCE(SUM(connections), 0)::bigint AS count FROM chat_presence
                    WHERE user_id = \(userId) AND seen_at > \(Self.freshness(now)))
                INSERT INTO chat_presence (user_id, node_id, connections, seen_at)
                VALUES (\(userId), \(nodeId), 1, \(now.millisecondsSince1970))
                ON CONFLICT (user_id, node_id) DO UPDATE SET connections = chat_presence.connections + 1, seen_at = EXCLUDED.seen_at
                RETURNING (SELECT count FROM others)
                """, logger: logger)
            for try await before in rows.decode(Int64.self) { return before == 0 }
        } catch {
            logger.error("recording a chat connection failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        return false
    }

    public func connectionClosed(userId: String) async -> Bool {
        let now = Date()
        do {
            try await store.client.query("""
                UPDATE chat_presence SET connections = connections - 1, seen_at = \(now.millisecondsSince1970)
                WHERE user_id = \(userId) AND node_id = \(nodeId)
                """, logger: logger)
            try await store.client.query(
                "DELETE FROM chat_presence WHERE user_id = \(userId) AND node_id = \(nodeId) AND connections <= 0", logger: logger)
            return try await online(among: [userId], now: now).isEmpty
        } catch {
            logger.error("recording a closed chat connection failed", metadata: ["error": "\(String(reflecting: error))"])
            return false
        }
    }

    public func online(among userIds: [String]) async -> Set<String> {
        do {
            return try await online(among: userIds, now: Date())
        } catch {
            logger.error("reading chat presence failed", metadata: ["error": "\(String(reflecting: error))"])
            return []
        }
    }

    private func online(among userIds: [String], now: Date) async throws -> Set<String> {
        guard !userIds.isEmpty else { return [] }
        var online: Set<String> = []
        let rows = try await store.client.query("""
            SELECT DISTINCT user_id FROM chat_presence
            WHERE user_id = ANY(\(userIds)) AND connections > 0 AND seen_at > \(Self.freshness(now))
            """, logger: logger)
        for try await userId in rows.decode(String.self) { online.insert(userId) }
        return online
    }

    /// The oldest `seen_at` (milliseconds) that still counts at `now`.
    private static func freshness(_ now: Date) -> Int64 {
        now.addingTimeInterval(-presenceExpiry).millisecondsSince1970
    }

    /// Refreshes this node's presence rows and removes stale ones, every ``heartbeat``, until cancelled; then
    /// removes this node's rows.
    private func keepPresenceFresh() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.heartbeat)
            let now = Date()
            do {
                try await store.client.query(
                    "UPDATE chat_presence SET seen_at = \(now.millisecondsSince1970) WHERE node_id = \(nodeId)", logger: logger)
                try await store.client.query("DELETE FROM chat_presence WHERE seen_at <= \(Self.freshness(now))", logger: logger)
            } catch where !Task.isCancelled {
                logger.warning("refreshing chat presence failed", metadata: ["error": "\(String(reflecting: error))"])
            } catch {
                return
            }
        }
    }

    /// Listens until graceful shutdown, reconnecting after failures and replaying what a drop may have missed.
    public func run() async throws {
        let presence = Task { await keepPresenceFresh() }
        defer {
            presence.cancel()
        }
        var droppedAt: Date?
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: store.connectionConfiguration, id: 0, logger: logger)
                // Closed on every path: a connection must be closed before it is released.
                defer { Task { try? await connection.close() } }
                try await withGracefulShutdownHandler {
                    try await connection.listen(on: Self.channel) { notifications in
                        if let since = droppedAt {
                            try await self.replayMessages(since: since.addingTimeInterval(-Self.replayMargin))
                            droppedAt = nil
                        }
                        backoff = .milliseconds(100)
                        for try await notification in notifications {
                            await self.receive(notification.payload)
                        }
                    }
                } onGracefulShutdown: {
                    // Ends the notification sequence, and with it the loop.
                    let closing: EventLoopFuture<Void> = connection.close()
                    closing.whenComplete { _ in }
                }
                // The server ended the stream: whatever follows until the next LISTEN must be replayed.
                if !Task.isShuttingDownGracefully { droppedAt = droppedAt ?? Date() }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                droppedAt = droppedAt ?? Date()
                logger.warning("chat bus listener lost; reconnecting", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        _ = try? await store.client.query("DELETE FROM chat_presence WHERE node_id = \(nodeId)", logger: logger)
    }

    /// Delivers another node's events to local subscribers.
    private func receive(_ payload: String) async {
        do {
            let envelope = try JSONDecoder().decode(Envelope.self, from: Data(payload.utf8))
            guard envelope.node != nodeId else { return }
            for wire in envelope.events {
                if case .messageReference(let roomId, let seq, let recipients) = wire {
                    for message in try await messages(where: "m.room_id = \(roomId) AND m.seq = \(seq)") {
                        await local.publish(.message(message.message, recipients: recipients))
                    }
                } else if let event = wire.chatEvent {
                    await local.publish(event)
                }
            }
        } catch {
            logger.error("a chat event from another node could not be read", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Publishes locally every message stored since `date`, in room and seq order.
    private func replayMessages(since date: Date) async throws {
        let replayed = try await messages(where: "m.sent_at >= \(date.millisecondsSince1970)")
        for entry in replayed {
            await local.publish(.message(entry.message, recipients: entry.recipients))
        }
        logger.info("chat bus listener back; replayed messages", metadata: ["count": "\(replayed.count)"])
    }

    /// Stored messages matching `condition` (on `chat_messages m`), with their rooms' members.
    private func messages(where condition: SQLStatement) async throws -> [(message: ChatMessage, recipients: [String])] {
        try await store.database.rows("""
            SELECT m.*, r.seller_id, r.buyer_id FROM chat_messages m JOIN chat_rooms r ON r.id = m.room_id
            WHERE \(condition) ORDER BY m.room_id, m.seq
            """
        ).map { row in (try ChatLog.message(row: row), [try row["seller_id"], try row["buyer_id"]]) }
    }

    /// One notification: the publishing node and its events, in the order published.
    struct Envelope: Decodable {
        let node: String
        let events: [WireEvent]
    }

    /// A ``ChatEvent`` as JSON, or a reference to a stored message too long to send inline.
    ///
    /// One flat object per event, `type` naming the case: written by ``json`` and read by ``init(from:)``
    /// (every event crosses both once per node).
    enum WireEvent: Decodable {
        case message(MessageJSON, recipients: [String])
        case messageReference(roomId: String, seq: Int, recipients: [String])
        case read(roomId: String, userId: String, seq: Int, recipients: [String])
        case typing(roomId: String, userId: String, recipients: [String])
        case presence(userId: String, online: Bool, recipients: [String])
        case notification(userId: String, json: String)
        case removed(roomId: String, messageId: String, seq: Int, recipients: [String])
        case closed(userId: String, sessionId: String?, reason: String)

        private enum CodingKeys: String, CodingKey {
            case type, message, messageId, roomId, userId, sessionId, seq, online, json, reason, recipients
        }

        /// The event's JSON text.
        var json: String {
            var object = JSONObjectWriter()
            switch self {
            case .message(let message, _):
                object.add("type", "message")
                object.add("message", json: message.json)
            case .messageReference(let roomId, let seq, _):
                object.add("type", "messageReference")
                object.add("roomId", roomId)
                object.add("seq", seq)
            case .read(let roomId, let userId, let seq, _):
                object.add("type", "read")
                object.add("roomId", roomId)
                object.add("userId", userId)
                object.add("seq", seq)
            case .typing(let roomId, let userId, _):
                object.add("type", "typing")
                object.add("roomId", roomId)
                object.add("userId", userId)
            case .presence(let userId, let online, _):
                object.add("type", "presence")
                object.add("userId", userId)
                object.add("online", online)
            case .notification(let userId, let json):
                object.add("type", "notification")
                object.add("userId", userId)
                object.add("json", json)
            case .removed(let roomId, let messageId, let seq, _):
                object.add("type", "removed")
                object.add("roomId", roomId)
                object.add("messageId", messageId)
                object.add("seq", seq)
            case .closed(let userId, let sessionId, let reason):
                object.add("type", "closed")
                object.add("userId", userId)
                if let sessionId { object.add("sessionId", sessionId) }
                object.add("reason", reason)
            }
            if let recipients { object.add("recipients", recipients) }
            return object.finish()
        }

        /// Who receives the event; a notification's or a closing's recipient is its user.
        private var recipients: [String]? {
            switch self {
            case .message(_, let recipients), .messageReference(_, _, let recipients), .read(_, _, _, let recipients),
                 .typing(_, _, let recipients), .presence(_, _, let recipients), .removed(_, _, _, let recipients):
                recipients
            case .notification, .closed:
                nil
            }
        }

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: CodingKeys.self)
            let type = try object.decode(String.self, forKey: .type)
            switch type {
            case "message":
                self = .message(try object.decode(MessageJSON.self, forKey: .message),
                                recipients: try object.decode([String].self, forKey: .recipients))
            case "messageReference":
                self = .messageReference(roomId: try object.decode(String.self, forKey: .roomId), seq: try object.decode(Int.self, forKey: .seq),
                                         recipients: try object.decode([String].self, forKey: .recipients))
            case "read":
                self = .read(roomId: try object.decode(String.self, forKey: .roomId), userId: try object.decode(String.self, forKey: .userId),
                             seq: try object.decode(Int.self, forKey: .seq), recipients: try object.decode([String].self, forKey: .recipients))
            case "typing":
                self = .typing(roomId: try object.decode(String.self, forKey: .roomId), userId: try object.decode(String.self, forKey: .userId),
                               recipients: try object.decode([String].self, forKey: .recipients))
            case "presence":
                self = .presence(userId: try object.decode(String.self, forKey: .userId), online: try object.decode(Bool.self, forKey: .online),
                                 recipients: try object.decode([String].self, forKey: .recipients))
            case "notification":
                self = .notification(userId: try object.decode(String.self, forKey: .userId), json: try object.decode(String.self, forKey: .json))
            case "removed":
                self = .removed(roomId: try object.decode(String.self, forKey: .roomId), messageId: try object.decode(String.self, forKey: .messageId),
                                seq: try object.decode(Int.self, forKey: .seq), recipients: try object.decode([String].self, forKey: .recipients))
            case "closed":
                self = .closed(userId: try object.decode(String.self, forKey: .userId),
                               sessionId: try object.decodeIfPresent(String.self, forKey: .sessionId),
                               reason: try object.decode(String.self, forKey: .reason))
            default:
                throw DecodingError.dataCorruptedError(forKey: .type, in: object, debugDescription: "unknown chat event type")
            }
        }

        init(_ event: ChatEvent) {
            switch event {
            case .message(let message, let recipients): self = .message(MessageJSON(message), recipients: recipients)
            case .read(let roomId, let userId, let seq, let recipients): self = .read(roomId: roomId, userId: userId, seq: seq, recipients: recipients)
            case .typing(let roomId, let userId, let recipients): self = .typing(roomId: roomId, userId: userId, recipients: recipients)
            case .presence(let userId, let online, let recipients): self = .presence(userId: userId, online: online, recipients: recipients)
            case .notification(let userId, let json): self = .notification(userId: userId, json: json)
            case .removed(let roomId, let messageId, let seq, let recipients):
                self = .removed(roomId: roomId, messageId: messageId, seq: seq, recipients: recipients)
            case .closed(let userId, let sessionId, let reason): self = .closed(userId: userId, sessionId: sessionId, reason: reason)
            }
        }

        /// The event, or nil for a reference (which needs the database).
        var chatEvent: ChatEvent? {
            switch self {
            case .message(let message, let recipients): .message(message.message, recipients: recipients)
            case .messageReference: nil
            case .read(let roomId, let userId, let seq, let recipients): .read(roomId: roomId, userId: userId, seq: seq, recipients: recipients)
            case .typing(let roomId, let userId, let recipients): .typing(roomId: roomId, userId: userId, recipients: recipients)
            case .presence(let userId, let online, let recipients): .presence(userId: userId, online: online, recipients: recipients)
            case .notification(let userId, let json): .notification(userId: userId, json: json)
            case .removed(let roomId, let messageId, let seq, let recipients):
                .removed(roomId: roomId, messageId: messageId, seq: seq, recipients: recipients)
            case .closed(let userId, let sessionId, let reason): .closed(userId: userId, sessionId: sessionId, reason: reason)
            }
        }
    }
}
