import ClassTodayCore
import Foundation
import Synchronization

/// Something that happened in chat that connected members must hear about.
public enum ChatEvent: Sendable, Hashable {
    /// A message was stored.
    case message(ChatMessage, recipients: [String])
    /// `userId` has read `roomId` up to `seq`.
    case read(roomId: String, userId: String, seq: Int, recipients: [String])
    /// `userId` is typing in `roomId`.
    case typing(roomId: String, userId: String, recipients: [String])
    /// `userId` came online or went offline.
    case presence(userId: String, online: Bool, recipients: [String])
    /// A notification for `userId` (JSON of the notification object).
    case notification(userId: String, json: String)
    /// An operator removed the message `messageId` (`seq` in `roomId`): it now reads as removed.
    case removed(roomId: String, messageId: String, seq: Int, recipients: [String])
    /// `userId`'s connections must close, all of them (`sessionId` nil: the account was suspended or deleted) or those
    /// opened with a token of the sign-in `sessionId` (it was signed out or revoked); `reason` says why.
    case closed(userId: String, sessionId: String?, reason: String)

    /// The users whose connections receive the event.
    public var recipients: [String] {
        switch self {
        case .message(_, let recipients), .read(_, _, _, let recipients), .typing(_, _, let recipients),
             .presence(_, _, let recipients), .removed(_, _, _, let recipients):
            recipients
        case .notification(let userId, _), .closed(let userId, _, _):
            [userId]
        }
    }
}

/// Carries chat events to every server node's hub: publish on one node, every subscriber hears it. It also counts
/// each user's connections over all nodes, so that presence means "connected anywhere".
/// The in-process bus serves one node; a PostgreSQL `LISTEN/NOTIFY` bus serves several.
public protocol ChatBus: Sendable {
    /// Sends an event to every subscriber.
    func publish(_ event: ChatEvent) async
    /// A stream of every event published from now on.
    func subscribe() -> AsyncStream<ChatEvent>
    /// Counts a new connection of `userId`; true when the user had no other connection on any node.
    func connectionOpened(userId: String) async -> Bool
    /// Counts a closed connection of `userId`; true when it was the user's last one on any node.
    func connectionClosed(userId: String) async -> Bool
    /// Which of `userIds` have a connection on some node.
    func online(among userIds: [String]) async -> Set<String>
}

/// The bus of a single node: events go straight to the subscribers in this process.
public final class InProcessChatBus: ChatBus {
    private let subscribers = Mutex<[UUID: AsyncStream<ChatEvent>.Continuation]>([:])
    private let connections = Mutex<[String: Int]>([:])

    /// Creates an empty bus.
    public init() {}

    public func publish(_ event: ChatEvent) async {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.yield(event)
        }
    }

    public func subscribe() -> AsyncStream<ChatEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    public func connectionOpened(userId: String) async -> Bool {
        connections.withLock { counts in
            counts[userId, default: 0] += 1
            return counts[userId] == 1
        }
    }

    public func connectionClosed(userId: String) async -> Bool {
        connections.withLock { counts in
            guard let count = counts[userId] else { return false }
            if count > 1 {
                counts[userId] = count - 1
                return false
            }
            counts.removeValue(forKey: userId)
            return true
        }
    }

    public func online(among userIds: [String]) async -> Set<String> {
        connections.withLock { counts in Set(userIds.filter { counts[$0] != nil }) }
    }
}
