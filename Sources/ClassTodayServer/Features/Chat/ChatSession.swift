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
/// go through the writer, which remembers, per room, the contiguous range of seqs it has delivered: a message
/// is never sent twice, a gap in live messages is filled from the database first, and a replay skips what live
/// delivery already sent. When the outbox is full the client is too slow: the connection is closed (the client
/// reconnects and syncs) rather than letting server memory grow.
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
    private let hub: ChatHub
    private let logger: Logger
    private let outbox: AsyncStream<Outbound>
    private let continuation: AsyncStream<Outbound>.Continuation
    private let overflowed = Atomic<Bool>(false)
    /// Rooms this connection has used, once membership was checked.
    private let rooms = Mutex<[String: ChatRoom]>([:])

    /// The most frames a connection may have waiting to be written.
    static let outboxLimit = 1024
    /// The largest client frame, in bytes.
    static let maximumFrameSize = 16 * 1024

    init(userId: String, hub: ChatHub, logger: Logger) {
        self.userId = userId
        self.hub = hub
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
        await hub.register(self)
        do {
            // The reader is a child task; the writer runs in this task, so a connection costs two tasks, not three.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.read(inbound) }
                defer { group.cancelAll() }
                try await self.write(to: outbound)
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
        guard let frame = try? JSONDecoder().decode(ClientFrame.self, from: Data(text.utf8)) else {
            enqueue(.error(code: "bad_frame", message: "frames must be JSON objects with a type", clientId: nil))
            return
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
        // The ack is queued before the hub can queue the message itself, so this connection sees ack then message.
        switch try await hub.send(outgoing, in: room) {
        case .stored(let message), .duplicate(let message): enqueue(.ack(message))
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
        guard !roomId.isEmpty, let room = try await hub.repository.room(id: roomId) else { throw DomainError.notFound("room") }
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
        }
    }

    // MARK: Writing

    /// The contiguous seqs of one room already sent on this connection.
    private struct Delivered {
        var lower: Int
        var upper: Int
    }

    private func write(to outbound: WebSocketOutboundWriter) async throws {
        var delivered: [String: Delivered] = [:]
        for await item in outbox {
            switch item {
            case .chat(.message(let message, _)):
                try await deliverLive(message, delivered: &delivered, outbound)
            case .chat(.read(let roomId, let userId, let seq, _)):
                try await outbound.write(.text(ServerFrame.read(roomId: roomId, userId: userId, seq: seq)))
            case .chat(.typing(let roomId, let userId, _)):
                try await outbound.write(.text(ServerFrame.typing(roomId: roomId, userId: userId)))
            case .chat(.presence(let userId, let online, _)):
                try await outbound.write(.text(ServerFrame.presence(userId: userId, online: online)))
            case .chat(.notification(_, let json)):
                try await outbound.write(.text(ServerFrame.notification(json: json)))
            case .ack(let message):
                try await outbound.write(.text(ServerFrame.ack(message)))
            case .sync(let room, let afterSeq):
                try await replay(room, afterSeq: afterSeq, delivered: &delivered, outbound)
            case .pong:
                try await outbound.write(.text(ServerFrame.pong))
            case .error(let code, let message, let clientId):
                try await outbound.write(.text(ServerFrame.error(code: code, message: message, clientId: clientId)))
            }
        }
    }

    private func deliverLive(_ message: ChatMessage, delivered: inout [String: Delivered], _ outbound: WebSocketOutboundWriter) async throws {
        guard var range = delivered[message.roomId] else {
            // The room's first live message here. Events can arrive out of order across nodes: messages stored
            // after the room was read (at connect or first use) and before this one go first, from the database.
            let known = rooms.withLock { $0[message.roomId]?.lastSeq }
            if let known, message.seq > known + 1 {
                try await writeStored(roomId: message.roomId, after: known, before: message.seq, outbound)
                delivered[message.roomId] = Delivered(lower: known + 1, upper: message.seq)
            } else {
                delivered[message.roomId] = Delivered(lower: message.seq, upper: message.seq)
            }
            try await outbound.write(.text(ServerFrame.message(message)))
            return
        }
        if (range.lower...range.upper).contains(message.seq) { return }
        if message.seq > range.upper + 1 {
            // A gap: fill it from the database, in order.
            try await writeStored(roomId: message.roomId, after: range.upper, before: message.seq, outbound)
        }
        if message.seq >= range.lower {
            range.upper = max(range.upper, message.seq)
        } else if message.seq == range.lower - 1 {
            range.lower = message.seq
        }
        delivered[message.roomId] = range
        try await outbound.write(.text(ServerFrame.message(message)))
    }

    /// Writes the stored messages of a room with seqs strictly between `after` and `before`, in order.
    private func writeStored(roomId: String, after: Int, before: Int, _ outbound: WebSocketOutboundWriter) async throws {
        let missing = try await hub.repository.messages(roomId: roomId, afterSeq: after, limit: before - after - 1)
        for earlier in missing where earlier.seq < before {
            try await outbound.write(.text(ServerFrame.message(earlier)))
        }
    }

    private func replay(_ room: ChatRoom, afterSeq: Int, delivered: inout [String: Delivered], _ outbound: WebSocketOutboundWriter) async throws {
        var cursor = afterSeq
        var range = delivered[room.id]
        while true {
            let batch = try await hub.repository.messages(roomId: room.id, afterSeq: cursor, limit: 500)
            for message in batch {
                if let known = range, (known.lower...known.upper).contains(message.seq) { continue }
                try await outbound.write(.text(ServerFrame.message(message)))
            }
            guard let last = batch.last else { break }
            cursor = last.seq
            if batch.count < 500 { break }
        }
        let upper = max(cursor, range?.upper ?? cursor)
        if upper > afterSeq || range != nil {
            range = Delivered(lower: min(afterSeq + 1, range?.lower ?? afterSeq + 1), upper: upper)
        }
        delivered[room.id] = range
    }
}
