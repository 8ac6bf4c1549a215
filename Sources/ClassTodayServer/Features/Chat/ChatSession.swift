import ClassTodayCore
import Foundation
import Logging
import NIOWebSocket
import Synchronization
import WSCore

/// One WebSocket connection of a signed-in user.
///
/// Two tasks serve it: the reader takes client frames (sends, reads, typing, pings) and the writer drains the
/// connection's bounded outbox, the only place that writes to the socket. Live messages and `sync` replays both
/// go through the writer, which keeps a ``RoomPosition`` per room: live delivery starts after the room's last seq
/// as read when the connection was taken (earlier messages come only through `sync`, however late their events
/// arrive), a message is never sent twice, a gap in live messages is filled from the database first, and a
/// replay skips what live delivery already sent. When the outbox is full the client is too slow: the connection
/// is closed (the client reconnects and syncs) rather than letting server memory grow.
final class ChatSession: Sendable {
    /// What the writer has to do next.
    enum Outbound: Sendable {
        case chat(ChatEvent)
        case ack(ChatMessage)
        case sync(room: ChatRoom, afterSeq: Int)
        case pong
        case error(code: String, message: String, clientId: String?)
    }

    /// The connection's id.
    let id = UUID()
    /// The signed-in user.
    let userId: String
    /// The sign-in whose token opened the connection (``Caller/sessionId``): the connection ends with it.
    let sessionId: String
    private let hub: ChatHub
    /// Rooms and stored messages, read for membership checks and replays; sends go through ``hub``.
    private let chats: any ChatRepository
    private let logger: Logger
    private let outbox: AsyncStream<Outbound>
    private let continuation: AsyncStream<Outbound>.Continuation
    private let overflowed = Atomic<Bool>(false)
    /// Rooms this connection has used, once membership was checked.
    private let rooms = Mutex<[String: ChatRoom]>([:])
    /// This connection's sends whose ack the writer has not written yet: their live message waits for it.
    private let awaitingAck = Mutex<Set<AckKey>>([])

    /// A send of this connection: the room and the client's id of the message.
    private struct AckKey: Hashable {
        let roomId: String
        let clientId: String?
    }

    /// The most frames a connection may have waiting to be written.
    static let outboxLimit = 1024
    /// The largest client frame, in bytes.
    static let maximumFrameSize = 16 * 1024

    init(userId: String, sessionId: String, hub: ChatHub, chats: any ChatRepository, logger: Logger) {
        self.userId = userId
        self.sessionId = sessionId
        self.hub = hub
        self.chats = chats
        self.logger = logger
        (outbox, continuation) = AsyncStream.makeStream(of: Outbound.self, bufferingPolicy: .bufferingOldest(Self.outboxLimit))
    }

    /// Queues something for the writer; a full outbox ends the connection.
    func enqueue(_ item: Outbound) {
        if case .dropped = continuation.yield(item) {
            overflowed.store(true, ordering: .relaxed)
            continuation.finish()
        }
    }

    /// Ends the writer (server shutdown).
    func finish() {
        continuation.finish()
    }

    /// Serves the connection until either side closes it.
    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let rooms: [ChatRoom]
        do {
            rooms = try await hub.register(self)
        } catch {
            logger.error("taking a chat connection failed", metadata: ["error": "\(String(reflecting: error))"])
            try? await outbound.close(.unexpectedServerError, reason: "try again")
            return
        }
        let positions = Dictionary(rooms.map { ($0.id, RoomPosition(after: $0.lastSeq)) }, uniquingKeysWith: { first, _ in first })
        do {
            // The reader is a child task; the writer runs in this task, so a connection costs two tasks, not three.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.read(inbound) }
                defer { group.cancelAll() }
                try await self.write(to: outbound, positions: positions)
            }
        } catch {
            await hub.unregister(self)
            throw error
        }
        await hub.unregister(self)
        if overflowed.load(ordering: .relaxed) {
            logger.notice("closing a slow chat connection", metadata: ["user_id": "\(userId)"])
            try? await outbound.close(.init(codeNumber: 1013), reason: "too slow: reconnect and sync")
        }
    }

    // MARK: Reading

    private func read(_ inbound: WebSocketInboundStream) async throws {
        do {
            for try await message in inbound.messages(maxSize: Self.maximumFrameSize) {
                guard hub.frameLimiter.take(id.uuidString).allowed else {
                    enqueue(.error(code: "rate_limited", message: "too many frames; slow down", clientId: nil))
                    continue
                }
                guard case .text(let text) = message else {
                    enqueue(.error(code: "bad_frame", message: "frames must be JSON text", clientId: nil))
                    continue
                }
                await handle(text)
            }
        } catch {
            logger.debug("chat connection read ended", metadata: ["error": "\(String(reflecting: error))"])
        }
        continuation.finish()
    }

    private func handle(_ text: String) async {
        let frame: ClientFrame
        do {
            frame = try APIJSONDecoder.decode(ClientFrame.self, from: Array(text.utf8))
        } catch DomainError.validation(let errors) {
            // A field holding what no text may (the NUL character) is named; any other failure is a bad frame.
            return enqueue(Self.errorFrame(for: .validation(errors), clientId: nil))
        } catch {
            return enqueue(.error(code: "bad_frame", message: "frames must be JSON objects with a type", clientId: nil))
        }
        do {
            switch frame.type {
            case "send": try await send(frame)
            case "read": try await markRead(frame)
            case "typing": try await typing(frame)
            case "sync": try await sync(frame)
            case "ping": enqueue(.pong)
            default: enqueue(.error(code: "unknown_type", message: "unknown frame type '\(frame.type)'", clientId: frame.clientId))
            }
        } catch let error as DomainError {
            enqueue(Self.errorFrame(for: error, clientId: frame.clientId))
        } catch {
            logger.error("chat frame failed", metadata: ["error": "\(String(reflecting: error))"])
            enqueue(.error(code: "internal", message: "the frame could not be handled; try again", clientId: frame.clientId))
        }
    }

    private func send(_ frame: ClientFrame) async throws {
        var validator = FieldValidator()
        validator.require(frame.roomId, "roomId")
        ChatRules.check(clientId: frame.clientId, text: frame.text, imageId: frame.imageId, into: &validator)
        try validator.throwIfInvalid()
        let room = try await memberRoom(frame.roomId ?? "")
        let outgoing = OutgoingMessage(roomId: room.id, senderId: userId, clientId: frame.clientId,
                                       kind: frame.imageId == nil ? .text : .image, text: frame.text, imageId: frame.imageId)
        // The message's live event may reach the writer before the ack is queued (the bus is another task, and on
        // PostgreSQL another connection): the writer holds it until it has written the ack, so that this connection
        // sees ack then message.
        let key = AckKey(roomId: room.id, clientId: frame.clientId)
        awaitingAck.withLock { _ = $0.insert(key) }
        do {
            switch try await hub.send(outgoing, in: room) {
            case .stored(let message), .duplicate(let message): enqueue(.ack(message))
            }
        } catch {
            // Nothing was stored: no message will wait.
            awaitingAck.withLock { _ = $0.remove(key) }
            throw error
        }
    }

    private func markRead(_ frame: ClientFrame) async throws {
        guard let seq = frame.seq, seq >= 0 else { throw DomainError.invalid("seq", "is required and must not be negative") }
        let room = try await memberRoom(frame.roomId ?? "")
        _ = try await hub.markRead(room: room, userId: userId, seq: seq)
    }

    private func typing(_ frame: ClientFrame) async throws {
        let room = try await memberRoom(frame.roomId ?? "")
        if hub.typingLimiter.take("\(id):\(room.id)").allowed {
            await hub.typing(room: room, userId: userId)
        }
    }

    private func sync(_ frame: ClientFrame) async throws {
        guard let afterSeq = frame.afterSeq, afterSeq >= 0 else { throw DomainError.invalid("afterSeq", "is required and must not be negative") }
        let room = try await memberRoom(frame.roomId ?? "")
        enqueue(.sync(room: room, afterSeq: afterSeq))
    }

    /// How many of the user's rooms a new connection learns (most recently active first); it looks up the others
    /// when first used.
    static let rememberedRooms = 64

    /// Records rooms this user is known to be a member of, so that using them needs no lookup.
    func remember(_ memberRooms: some Sequence<ChatRoom>) {
        rooms.withLock { rooms in
            for room in memberRooms where room.isMember(userId) { rooms[room.id] = room }
        }
    }

    /// The room, once this user is known to be a member; a DomainError otherwise.
    private func memberRoom(_ roomId: String) async throws -> ChatRoom {
        if let room = rooms.withLock({ $0[roomId] }) { return room }
        guard !roomId.isEmpty, let room = try await chats.room(id: roomId) else { throw DomainError.notFound("room") }
        guard room.isMember(userId) else { throw DomainError.forbidden("you are not a member of this room") }
        rooms.withLock { $0[roomId] = room }
        return room
    }

    private static func errorFrame(for error: DomainError, clientId: String?) -> Outbound {
        switch error {
        case .notFound(let what): .error(code: "not_found", message: "\(what) not found", clientId: clientId)
        case .forbidden(let detail): .error(code: "forbidden", message: detail, clientId: clientId)
        case .validation(let errors):
            .error(code: "invalid", message: errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "), clientId: clientId)
        case .conflict(let detail): .error(code: "conflict", message: detail, clientId: clientId)
        case .unauthorized(let detail): .error(code: "unauthorized", message: detail, clientId: clientId)
        case .badRequest(let detail, _), .unsupportedMediaType(let detail): .error(code: "bad_frame", message: detail, clientId: clientId)
        case .unavailable(let detail, _): .error(code: "unavailable", message: detail, clientId: clientId)
        case .tooManyRequests(let detail, _): .error(code: "rate_limited", message: detail, clientId: clientId)
        }
    }

    // MARK: Writing

    /// Where live delivery of one room stands on this connection: the seqs `lower...upper` were sent (none when
    /// `lower > upper`), and no live message at or below `upper` is sent. It starts empty just after the room's
    /// last seq when the connection was taken (0 for a room opened later): messages stored before that reach the
    /// client only when it asks with `sync`, so an event that arrives late cannot overtake them.
    struct RoomPosition: Equatable {
        /// The lowest seq sent.
        var lower: Int
        /// The highest seq sent, or accounted for before the connection was taken.
        var upper: Int

        /// A position with nothing sent, after `seq`.
        init(after seq: Int) {
            lower = seq + 1
            upper = seq
        }

        /// Whether `seq` was sent on this connection.
        func sent(_ seq: Int) -> Bool {
            lower <= seq && seq <= upper
        }
    }

    private func write(to outbound: WebSocketOutboundWriter, positions: [String: RoomPosition]) async throws {
        var positions = positions
        /// Live messages of this connection's own sends, waiting for their acks.
        var held: [AckKey: ChatMessage] = [:]
        for await item in outbox {
            switch item {
            case .chat(.message(let message, _)):
                let key = AckKey(roomId: message.roomId, clientId: message.clientId)
                if message.senderId == userId, awaitingAck.withLock({ $0.contains(key) }) {
                    held[key] = message
                    continue
                }
                try await deliverLive(message, position: &positions[message.roomId, default: RoomPosition(after: 0)], outbound)
            case .chat(.read(let roomId, let userId, let seq, _)):
                try await outbound.write(.text(ServerFrame.read(roomId: roomId, userId: userId, seq: seq)))
            case .chat(.typing(let roomId, let userId, _)):
                try await outbound.write(.text(ServerFrame.typing(roomId: roomId, userId: userId)))
            case .chat(.presence(let userId, let online, _)):
                try await outbound.write(.text(ServerFrame.presence(userId: userId, online: online)))
            case .chat(.notification(_, let json)):
                try await outbound.write(.text(ServerFrame.notification(json: json)))
            case .chat(.removed(let roomId, let messageId, let seq, _)):
                try await outbound.write(.text(ServerFrame.removed(roomId: roomId, messageId: messageId, seq: seq)))
            case .chat(.closed(_, let sessionId, _)) where sessionId != nil && sessionId != self.sessionId:
                continue
            case .chat(.closed(_, _, let reason)):
                logger.info("closing a chat connection", metadata: ["user_id": "\(userId)", "reason": "\(reason)"])
                try? await outbound.close(.policyViolation, reason: reason)
                return
            case .ack(let message):
                try await outbound.write(.text(ServerFrame.ack(message)))
                let key = AckKey(roomId: message.roomId, clientId: message.clientId)
                awaitingAck.withLock { _ = $0.remove(key) }
                if let live = held.removeValue(forKey: key) {
                    try await deliverLive(live, position: &positions[live.roomId, default: RoomPosition(after: 0)], outbound)
                }
            case .sync(let room, let afterSeq):
                try await replay(room.id, afterSeq: afterSeq, position: &positions[room.id, default: RoomPosition(after: 0)], outbound)
            case .pong:
                try await outbound.write(.text(ServerFrame.pong))
            case .error(let code, let message, let clientId):
                try await outbound.write(.text(ServerFrame.error(code: code, message: message, clientId: clientId)))
            }
        }
    }

    /// Sends a live message after any stored ones it skipped, unless it is at or below the room's position.
    private func deliverLive(_ message: ChatMessage, position: inout RoomPosition, _ outbound: WebSocketOutboundWriter) async throws {
        guard message.seq > position.upper else { return }
        if message.seq > position.upper + 1 {
            // A gap (events can overtake each other across nodes): fill it from the database, in order.
            let missing = try await chats.messages(roomId: message.roomId, afterSeq: position.upper,
                                                           limit: message.seq - position.upper - 1)
            for earlier in missing where earlier.seq < message.seq {
                try await outbound.write(.text(ServerFrame.message(earlier)))
            }
        }
        try await outbound.write(.text(ServerFrame.message(message)))
        position.upper = message.seq
    }

    /// Sends every stored message of a room after `afterSeq`, in order, but those live delivery already sent.
    private func replay(_ roomId: String, afterSeq: Int, position: inout RoomPosition, _ outbound: WebSocketOutboundWriter) async throws {
        var cursor = afterSeq
        while true {
            let batch = try await chats.messages(roomId: roomId, afterSeq: cursor, limit: Self.replayBatch)
            for message in batch where !position.sent(message.seq) {
                try await outbound.write(.text(ServerFrame.message(message)))
            }
            guard let last = batch.last else { break }
            cursor = last.seq
            if batch.count < Self.replayBatch { break }
        }
        // Everything stored after `afterSeq` has now been sent, up to the last stored seq.
        if cursor > afterSeq {
            position.lower = min(position.lower, afterSeq + 1)
            position.upper = max(position.upper, cursor)
        }
    }

    /// How many messages one replay read fetches.
    private static let replayBatch = 500
}
