import Foundation

/// A conversation about one class between its writer and one other user.
///
/// For a sell class the writer is the seller; for a buy class the writer is the buyer.
public struct ChatRoom: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// The class the room is about.
    public let classId: String
    /// The member who sells (teaches).
    public let sellerId: String
    /// The member who buys (learns).
    public let buyerId: String
    /// When the room was opened.
    public let createdAt: Date
    /// The seq of the newest message, 0 when there is none.
    public var lastSeq: Int
    /// When the newest message was sent (the room's creation before any).
    public var lastActivityAt: Date
    /// The highest seq the seller has read.
    public var sellerReadSeq: Int
    /// The highest seq the buyer has read.
    public var buyerReadSeq: Int

    /// Creates a room value.
    public init(id: String, classId: String, sellerId: String, buyerId: String, createdAt: Date, lastSeq: Int = 0,
                lastActivityAt: Date? = nil, sellerReadSeq: Int = 0, buyerReadSeq: Int = 0) {
        self.id = id
        self.classId = classId
        self.sellerId = sellerId
        self.buyerId = buyerId
        self.createdAt = createdAt
        self.lastSeq = lastSeq
        self.lastActivityAt = lastActivityAt ?? createdAt
        self.sellerReadSeq = sellerReadSeq
        self.buyerReadSeq = buyerReadSeq
    }

    /// The two members.
    public var memberIds: [String] { [sellerId, buyerId] }

    /// Whether `userId` is one of the two members.
    public func isMember(_ userId: String) -> Bool {
        userId == sellerId || userId == buyerId
    }

    /// Throws ``DomainError/forbidden(_:)`` unless `userId` is a member: "only the room's members may `action`".
    public func checkMember(_ userId: String, to action: String) throws(DomainError) {
        guard isMember(userId) else { throw .forbidden("only the room's members may \(action)") }
    }

    /// The other member, for a member.
    public func counterpart(of userId: String) -> String {
        userId == sellerId ? buyerId : sellerId
    }

    /// The highest seq `userId` has read.
    public func readSeq(of userId: String) -> Int {
        userId == sellerId ? sellerReadSeq : buyerReadSeq
    }

    /// How many messages `userId` has not read.
    public func unreadCount(of userId: String) -> Int {
        max(0, lastSeq - readSeq(of: userId))
    }

    /// The seller and buyer of a room on `listing` opened by `visitorId` (who is not its writer).
    public static func roles(of listing: ClassListing, visitor visitorId: String) -> (sellerId: String, buyerId: String) {
        listing.type == .sell ? (listing.writerId, visitorId) : (visitorId, listing.writerId)
    }

    /// A new room about `listing`, opened by `visitorId` at `date`.
    ///
    /// - Throws: a validation error on `classId` when `visitorId` wrote the class.
    public static func open(id: String, on listing: ClassListing, by visitorId: String, at date: Date) throws(DomainError) -> ChatRoom {
        guard listing.writerId != visitorId else { throw .invalid("classId", "you cannot open a chat on your own class") }
        let (sellerId, buyerId) = roles(of: listing, visitor: visitorId)
        return ChatRoom(id: id, classId: listing.id, sellerId: sellerId, buyerId: buyerId, createdAt: date)
    }
}

/// What a message carries.
public enum MessageKind: String, Sendable, Codable, Hashable {
    /// Text typed by a member.
    case text
    /// An uploaded image.
    case image
    /// A notice posted by the server (match proposed, accepted, ...).
    case system
}

/// A stored message. `seq` starts at 1 in each room and grows by one with each message, with no gaps.
public struct ChatMessage: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// The room.
    public let roomId: String
    /// The message's position in its room.
    public let seq: Int
    /// The member who sent it (for system messages, the member whose action caused it).
    public let senderId: String
    /// Text, image or system.
    public let kind: MessageKind
    /// The text, for text and system messages.
    public let text: String?
    /// The image, for image messages.
    public let imageId: String?
    /// The sender's idempotency key, for text and image messages.
    public let clientId: String?
    /// When it was stored.
    public let sentAt: Date
    /// Whether an operator removed it: its text is then ``ModerationRules/removedMessageText`` and it has no image.
    public let removed: Bool

    /// Creates a message value.
    public init(id: String, roomId: String, seq: Int, senderId: String, kind: MessageKind, text: String?, imageId: String?,
                clientId: String?, sentAt: Date, removed: Bool = false) {
        self.id = id
        self.roomId = roomId
        self.seq = seq
        self.senderId = senderId
        self.kind = kind
        self.text = text
        self.imageId = imageId
        self.clientId = clientId
        self.sentAt = sentAt
        self.removed = removed
    }
}

/// A message to store: the room, who sends it, and what it says.
public struct OutgoingMessage: Sendable, Hashable {
    /// The room.
    public let roomId: String
    /// The sender.
    public let senderId: String
    /// The sender's idempotency key: the same key from the same sender in the same room stores one message.
    public let clientId: String?
    /// Text, image or system.
    public let kind: MessageKind
    /// The text.
    public let text: String?
    /// The image.
    public let imageId: String?

    /// Creates an outgoing message.
    public init(roomId: String, senderId: String, clientId: String?, kind: MessageKind, text: String?, imageId: String?) {
        self.roomId = roomId
        self.senderId = senderId
        self.clientId = clientId
        self.kind = kind
        self.text = text
        self.imageId = imageId
    }
}

/// The rules messages must satisfy.
public enum ChatRules {
    /// Accepted text lengths, in characters.
    public static let textLength = 1...2000
    /// Accepted client id lengths, in characters.
    public static let clientIdLength = 1...64

    /// Checks a text or image message from a member: exactly one of text and image, a client id.
    public static func check(clientId: String?, text: String?, imageId: String?, into validator: inout FieldValidator) {
        validator.require(clientId, "clientId")
        validator.checkLength(clientId, "clientId", clientIdLength)
        switch (text, imageId) {
        case (nil, nil): validator.fail("text", "text or imageId is required")
        case (.some, .some): validator.fail("imageId", "send either text or imageId, not both")
        case (let text?, nil): validator.checkLength(text, "text", textLength)
        case (nil, .some): break
        }
    }
}
