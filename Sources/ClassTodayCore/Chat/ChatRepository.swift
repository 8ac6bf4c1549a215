import Foundation

/// A room as its member sees it in the room list.
public struct RoomSummary: Sendable, Hashable {
    /// The room.
    public let room: ChatRoom
    /// The class: id, name, type and status (kept readable after the class is deleted).
    public let classId: String
    /// The class name.
    public let className: String
    /// The class type.
    public let classType: ClassType
    /// The class status.
    public let classStatus: ClassStatus
    /// The class's first image, the one lists show; nil when it has none.
    public let classImageId: String?
    /// The seller's summary.
    public let seller: WriterSummary
    /// The buyer's summary.
    public let buyer: WriterSummary
    /// The newest message, if any.
    public let lastMessage: ChatMessage?

    /// Creates a summary.
    public init(room: ChatRoom, classId: String, className: String, classType: ClassType, classStatus: ClassStatus,
                classImageId: String? = nil, seller: WriterSummary, buyer: WriterSummary, lastMessage: ChatMessage?) {
        self.room = room
        self.classId = classId
        self.className = className
        self.classType = classType
        self.classStatus = classStatus
        self.classImageId = classImageId
        self.seller = seller
        self.buyer = buyer
        self.lastMessage = lastMessage
    }
}

/// The outcome of storing one message of a batch.
public enum AppendResult: Sendable, Hashable {
    /// Stored now.
    case stored(ChatMessage)
    /// The same client id was already used by the sender in the room: the first message, stored earlier.
    case duplicate(ChatMessage)

    /// The message, new or earlier.
    public var message: ChatMessage {
        switch self {
        case .stored(let message), .duplicate(let message): message
        }
    }
}

/// Stores rooms, messages and read positions. Implementations are named after their backend.
public protocol ChatRepository: Sendable {
    /// The room of (`classId`, `userId`), created when missing. Throws ``DomainError/notFound(_:)`` for a missing
    /// class and a validation error on `classId` when `userId` wrote the class.
    func openRoom(classId: String, userId: String, at date: Date) async throws -> (room: ChatRoom, created: Bool)
    /// The room with this id.
    func room(id: String) async throws -> ChatRoom?
    /// One room with its class, members and last message.
    func summary(roomId: String) async throws -> RoomSummary?
    /// The rooms of `userId`, most recent activity first.
    func rooms(of userId: String, page: PageRequest) async throws -> Page<RoomSummary>
    /// Every room `userId` is a member of, in no particular order: their counterparts see their presence, and
    /// a new connection knows these rooms without asking again.
    func memberRooms(of userId: String) async throws -> [ChatRoom]
    /// Messages of a room, newest first, below `beforeSeq` when given.
    func history(roomId: String, beforeSeq: Int?, page: PageRequest) async throws -> Page<ChatMessage>
    /// Messages of a room with a seq above `afterSeq`, oldest first, at most `limit`.
    func messages(roomId: String, afterSeq: Int, limit: Int) async throws -> [ChatMessage]
    /// Stores a batch of messages in one transaction, each with its room's next seq, in the batch's order.
    /// A message whose room is missing or whose sender is not a member fails alone with ``DomainError``.
    func append(_ batch: [OutgoingMessage], at date: Date) async throws -> [Result<AppendResult, DomainError>]
    /// Records that `userId` has read `room` up to `seq` (never moving backwards, never past the last message);
    /// returns the read position after the change.
    func markRead(roomId: String, userId: String, seq: Int) async throws -> Int
}
