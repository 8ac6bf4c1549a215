import ClassTodayCore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The chat hub of one server node: it stores messages (through the group-committing ``MessageWriter``),
/// publishes what happens on the ``ChatBus``, and delivers every bus event to the connections of its recipients
/// on this node. Presence is counted by the bus: a user is online from their first connection on any node to their last.
public final class ChatHub: Service, Sendable {
    private let bus: any ChatBus
    private let chats: any ChatRepository
    private let writer: MessageWriter
    private let bannedWords: BannedWordsFile
    private let logger: Logger
    private let pushQueued: @Sendable () -> Void
    private let events: AsyncStream<ChatEvent>
    private let sessions = Mutex<[String: [UUID: ChatSession]]>([:])
    /// Per-connection frame budget (``AppConfiguration/chatFrameLimit``; by default bursts of 60, then 20 a second).
    let frameLimiter: RateLimiter
    /// Typing notices per connection and room: one every two seconds.
    let typingLimiter = RateLimiter(burst: 1, perSecond: 0.5)

    /// Creates a hub over a bus and a repository; message text is masked with `bannedWords` before it is stored.
    /// `pushQueued` is called after something that may have queued a push was stored (it wakes the push delivery).
    /// `frameLimit` is each connection's frame budget.
    public init(bus: any ChatBus, chats: any ChatRepository, bannedWords: BannedWordsFile, logger: Logger,
                frameLimit: AppConfiguration.FrameLimit = .init(), pushQueued: @escaping @Sendable () -> Void = {}) {
        self.bus = bus
        self.frameLimiter = RateLimiter(burst: frameLimit.burst, perSecond: frameLimit.perSecond)
        self.pushQueued = pushQueued
        self.chats = chats
        self.writer = MessageWriter(repository: chats)
        self.bannedWords = bannedWords
        self.logger = logger
        // Subscribe now, so that nothing published before `run` starts is missed.
        self.events = bus.subscribe()
    }

    /// Delivers bus events to local connections until the server shuts down.
    public func run() async throws {
        for await event in events.cancelOnGracefulShutdown() {
            deliver(event)
        }
        let open = sessions.withLock { $0.values.flatMap(\.values) }
        for session in open { session.finish() }
    }

    // MARK: Messages

    /// Stores a text or image message from a member of `room` and publishes it; a repeated client id returns the
    /// earlier message and publishes nothing. Banned words in the text are masked here, before storage, for REST and
    /// WebSocket sends alike: what is stored, acknowledged and delivered is the masked text.
    func send(_ outgoing: OutgoingMessage, in room: ChatRoom) async throws -> AppendResult {
        let masked = outgoing.text.map(bannedWords.filter.masked)
        let result = try await writer.append(masked == outgoing.text ? outgoing : OutgoingMessage(
            roomId: outgoing.roomId, senderId: outgoing.senderId, clientId: outgoing.clientId, kind: outgoing.kind,
            text: masked, imageId: outgoing.imageId))
        if case .stored(let message) = result {
            pushQueued()
            await bus.publish(.message(message, recipients: room.memberIds))
        }
        return result
    }

    /// Publishes a message stored elsewhere (a match step's system message) to both members of `room`.
    func publish(_ message: ChatMessage, in room: ChatRoom) async {
        pushQueued()
        await bus.publish(.message(message, recipients: room.memberIds))
    }

    /// Records a read position and tells both members.
    func markRead(room: ChatRoom, userId: String, seq: Int) async throws -> Int {
        let position = try await chats.markRead(roomId: room.id, userId: userId, seq: seq)
        await bus.publish(.read(roomId: room.id, userId: userId, seq: position, recipients: room.memberIds))
        return position
    }

    /// Tells the other member that `userId` is typing.
    func typing(room: ChatRoom, userId: String) async {
        await bus.publish(.typing(roomId: room.id, userId: userId, recipients: [room.counterpart(of: userId)]))
    }

    /// Pushes a notification (already encoded JSON) to `userId`'s connections on every node.
    public func notify(userId: String, json: String) async {
        pushQueued()
        await bus.publish(.notification(userId: userId, json: json))
    }

    /// Tells both members of a room that an operator removed one of its messages.
    public func removed(_ removal: RemovedMessage) async {
        await bus.publish(.removed(roomId: removal.roomId, messageId: removal.messageId, seq: removal.seq, recipients: removal.memberIds))
    }

    /// Closes every connection of `userId` on every node (its account was suspended or deleted), or with `sessionId`
    /// only those opened with a token of that sign-in (it ended), with `reason` in the close frame (code 1008).
    public func close(userId: String, sessionId: String? = nil, reason: String) async {
        await bus.publish(.closed(userId: userId, sessionId: sessionId, reason: reason))
    }

    // MARK: Connections

    /// Adds a connection and returns the user's rooms as they stand now, read after the connection started to
    /// receive events; the user's counterparts hear that they came online with their first connection, and the
    /// connection hears which counterparts are online and learns the user's most recently active rooms.
    func register(_ session: ChatSession) async throws -> [ChatRoom] {
        sessions.withLock { sessions in
            sessions[session.userId, default: [:]][session.id] = session
        }
        let first = await bus.connectionOpened(userId: session.userId)
        let rooms: [ChatRoom]
        do {
            rooms = try await chats.memberRooms(of: session.userId)
        } catch {
            await unregister(session)
            throw error
        }
        session.remember(rooms.sorted { $0.lastActivityAt > $1.lastActivityAt }.prefix(ChatSession.rememberedRooms))
        let counterparts = Self.counterparts(of: session.userId, in: rooms)
        let online = await bus.online(among: counterparts)
        for userId in counterparts where online.contains(userId) {
            session.enqueue(.chat(.presence(userId: userId, online: true, recipients: [session.userId])))
        }
        if first, !counterparts.isEmpty {
            await bus.publish(.presence(userId: session.userId, online: true, recipients: counterparts))
        }
        return rooms
    }

    /// Removes a connection; with the user's last one, counterparts hear that they went offline.
    func unregister(_ session: ChatSession) async {
        sessions.withLock { sessions in
            sessions[session.userId]?.removeValue(forKey: session.id)
            if sessions[session.userId]?.isEmpty == true {
                sessions.removeValue(forKey: session.userId)
            }
        }
        let last = await bus.connectionClosed(userId: session.userId)
        frameLimiter.forget(session.id.uuidString)
        if last, let rooms = try? await chats.memberRooms(of: session.userId), !rooms.isEmpty {
            await bus.publish(.presence(userId: session.userId, online: false, recipients: Self.counterparts(of: session.userId, in: rooms)))
        }
    }

    /// The users who share one of `rooms` with `userId`, each once.
    private static func counterparts(of userId: String, in rooms: [ChatRoom]) -> [String] {
        Array(Set(rooms.map { $0.counterpart(of: userId) })).sorted()
    }

    /// How many connections are open on this node.
    var connectionCount: Int {
        sessions.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    private func deliver(_ event: ChatEvent) {
        let targets = sessions.withLock { sessions in event.recipients.flatMap { sessions[$0].map { Array($0.values) } ?? [] } }
        for session in targets {
            session.enqueue(.chat(event))
        }
    }
}

extension ChatHub {
    /// Publishes a match step: its system message in the room, and a `notification` frame to both members.
    func announce(_ step: MatchStep) async {
        await publish(step.message, in: step.room)
        let notification = MatchNotification(match: step.match)
        for userId in step.match.memberIds {
            await notify(userId: userId, json: notification.apiJSONText)
        }
    }
}
