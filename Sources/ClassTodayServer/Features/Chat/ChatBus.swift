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

    /// The users whose connections receive the event.
    public var recipients: [String] {
        switch self {
        case .message(_, let recipients), .read(_, _, _, let recipients), .typing(_, _, let recipients),
             .presence(_, _, let recipients):
            recipients
        case .notification(let userId, _):
            [userId]
        }
    }
}

/// Carries chat events to every server node's hub: publish on one node, every subscriber hears it.
/// The in-process bus serves one node; a PostgreSQL `LISTEN/NOTIFY` bus serves several.
public protocol ChatBus: Sendable {
    /// Sends an event to every subscriber.
    func publish(_ event: ChatEvent) async
    /// A stream of every event published from now on.
    func subscribe() -> AsyncStream<ChatEvent>
}

/// The bus of a single node: events go straight to the subscribers in this process.
public final class InProcessChatBus: ChatBus {
    private let subscribers = Mutex<[UUID: AsyncStream<ChatEvent>.Continuation]>([:])

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
}
