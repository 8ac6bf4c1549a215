import Foundation

/// What storing a batch of messages does, decided before anything is written, so that every backend applies the
/// same rules and can write a whole batch with a few statements.
///
/// Messages are taken in order. A message whose room is missing or whose sender is not a member fails alone; one
/// whose client id its sender already used in the room (earlier, or earlier in this batch) returns that first
/// message; any other gets its room's next seq, and the sender has then read up to it.
public struct MessageBatch: Sendable {
    /// Identifies a message by the (room, sender, client id) that makes a resend a duplicate.
    public struct ClientKey: Hashable, Sendable {
        /// The room.
        public let roomId: String
        /// The sender.
        public let senderId: String
        /// The sender's id for the message.
        public let clientId: String

        /// Creates a key.
        public init(roomId: String, senderId: String, clientId: String) {
            self.roomId = roomId
            self.senderId = senderId
            self.clientId = clientId
        }

        /// The key of a message that has a client id.
        public init?(_ message: ChatMessage) {
            guard let clientId = message.clientId else { return nil }
            self.init(roomId: message.roomId, senderId: message.senderId, clientId: clientId)
        }
    }

    /// The outcome of each message, in the batch's order.
    public let results: [Result<AppendResult, DomainError>]
    /// The messages to insert, in the batch's order.
    public let stored: [ChatMessage]
    /// The rooms that receive messages as they are after the batch (last seq, activity, read positions), in id
    /// order.
    public let changedRooms: [ChatRoom]

    /// The keys of every message of `batch` that carries a client id: the stored messages to look up before
    /// planning.
    public static func clientKeys(of batch: [OutgoingMessage]) -> [ClientKey] {
        batch.compactMap { outgoing in
            outgoing.clientId.map { ClientKey(roomId: outgoing.roomId, senderId: outgoing.senderId, clientId: $0) }
        }
    }

    /// Plans `batch` at `date` against `rooms` (by id, current and locked by the caller's transaction) and the
    /// stored messages `existing` found for ``clientKeys(of:)``. Members' messages in `closedRooms` (rooms whose
    /// members blocked one another, or one of whom deleted their account) are refused with the room's error; system
    /// messages are not.
    public init(_ batch: [OutgoingMessage], rooms: [String: ChatRoom], closedRooms: [String: DomainError] = [:], existing: [ChatMessage], at date: Date) {
        var rooms = rooms
        var known = Dictionary(existing.compactMap { message in ClientKey(message).map { ($0, message) } },
                               uniquingKeysWith: { first, _ in first })
        var changed: Set<String> = []
        var results: [Result<AppendResult, DomainError>] = []
        var stored: [ChatMessage] = []
        results.reserveCapacity(batch.count)
        for outgoing in batch {
            guard var room = rooms[outgoing.roomId] else {
                results.append(.failure(.notFound("room")))
                continue
            }
            guard room.isMember(outgoing.senderId) else {
                results.append(.failure(.forbidden("only the room's members may write in it")))
                continue
            }
            let key = outgoing.clientId.map { ClientKey(roomId: outgoing.roomId, senderId: outgoing.senderId, clientId: $0) }
            if let key, let first = known[key] {
                results.append(.success(.duplicate(first)))
                continue
            }
            if outgoing.kind != .system, let closed = closedRooms[room.id] {
                results.append(.failure(closed))
                continue
            }
            let message = ChatMessage(
                id: Identifier.make(at: date), roomId: room.id, seq: room.lastSeq + 1, senderId: outgoing.senderId,
                kind: outgoing.kind, text: outgoing.text, imageId: outgoing.imageId, clientId: outgoing.clientId, sentAt: date)
            room.lastSeq = message.seq
            room.lastActivityAt = date
            if outgoing.senderId == room.sellerId {
                room.sellerReadSeq = message.seq
            } else {
                room.buyerReadSeq = message.seq
            }
            rooms[room.id] = room
            changed.insert(room.id)
            if let key { known[key] = message }
            stored.append(message)
            results.append(.success(.stored(message)))
        }
        self.results = results
        self.stored = stored
        self.changedRooms = changed.sorted().compactMap { rooms[$0] }
    }
}
