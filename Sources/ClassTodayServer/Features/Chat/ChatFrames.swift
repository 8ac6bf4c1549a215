import ClassTodayCore
import Foundation
import Hummingbird

/// A message object as the API shows it.
struct MessageResponse: ResponseCodable {
    /// The message's id.
    let id: String
    /// Its room.
    let roomId: String
    /// Its place in the room, from 1.
    let seq: Int
    /// Who sent it (for a system message, the member whose step it tells of).
    let senderId: String
    /// Text, image or system.
    let kind: MessageKind
    /// The text, for text and system messages.
    @Nullable var text: String?
    /// The image's path, for image messages.
    @Nullable var imageUrl: String?
    /// The image's variants, for image messages.
    @Nullable var imageVariants: ImageVariantLinks?
    /// The sender's own id for the send, which makes a repeated send harmless.
    @Nullable var clientId: String?
    /// When it was stored.
    let sentAt: Date
    /// Whether an operator removed the message (its text and image are then gone).
    let removed: Bool

    /// The object for `message`.
    init(message: ChatMessage) {
        (id, roomId, seq, senderId, kind) = (message.id, message.roomId, message.seq, message.senderId, message.kind)
        (text, clientId, sentAt, removed) = (message.text, message.clientId, message.sentAt, message.removed)
        imageUrl = message.imageId.map(ImageURL.path(for:))
        imageVariants = message.imageId.map(ImageVariantLinks.init(imageId:))
    }
}

/// A frame from a client: `send`, `read`, `typing`, `sync` or `ping`, with the fields of its type.
struct ClientFrame: Decodable {
    let type: String
    let roomId: String?
    let clientId: String?
    let text: String?
    let imageId: String?
    let seq: Int?
    let afterSeq: Int?
}

/// Frames the server sends, as JSON text.
///
/// Written with ``JSONObjectWriter``: a message costs an ack and a frame for each connection of both members.
enum ServerFrame {
    /// `{"type": "ack", ...}` for a stored message.
    static func ack(_ message: ChatMessage) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "ack")
        if let clientId = message.clientId { frame.add("clientId", clientId) }
        frame.add("roomId", message.roomId)
        frame.add("seq", message.seq)
        frame.add("messageId", message.id)
        frame.add("sentAt", message.sentAt)
        return frame.finish()
    }

    /// `{"type": "message", ...}`.
    static func message(_ message: ChatMessage) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "message")
        frame.add("roomId", message.roomId)
        frame.add("message", json: messageObject(message))
        return frame.finish()
    }

    /// The message object, with the fields and values that ``MessageResponse`` gives HTTP responses.
    static func messageObject(_ message: ChatMessage) -> String {
        var object = JSONObjectWriter()
        object.add("id", message.id)
        object.add("roomId", message.roomId)
        object.add("seq", message.seq)
        object.add("senderId", message.senderId)
        object.add("kind", message.kind.rawValue)
        object.add("text", message.text)
        object.add("imageUrl", message.imageId.map(ImageURL.path(for:)))
        object.add("imageVariants", object: message.imageId.map(ImageVariantLinks.init(imageId:))) { $1.writeFields(to: &$0) }
        object.add("clientId", message.clientId)
        object.add("sentAt", message.sentAt)
        object.add("removed", message.removed)
        return object.finish()
    }

    /// `{"type": "read", ...}`.
    static func read(roomId: String, userId: String, seq: Int) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "read")
        frame.add("roomId", roomId)
        frame.add("userId", userId)
        frame.add("seq", seq)
        return frame.finish()
    }

    /// `{"type": "typing", ...}`.
    static func typing(roomId: String, userId: String) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "typing")
        frame.add("roomId", roomId)
        frame.add("userId", userId)
        return frame.finish()
    }

    /// `{"type": "presence", ...}`.
    static func presence(userId: String, online: Bool) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "presence")
        frame.add("userId", userId)
        frame.add("online", online)
        return frame.finish()
    }

    /// `{"type": "notification", "notification": {...}}` around an already encoded notification.
    static func notification(json: String) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "notification")
        frame.add("notification", json: json)
        return frame.finish()
    }

    /// `{"type": "removed", "roomId", "messageId", "seq"}`: an operator removed the message, which now reads as removed.
    static func removed(roomId: String, messageId: String, seq: Int) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "removed")
        frame.add("roomId", roomId)
        frame.add("messageId", messageId)
        frame.add("seq", seq)
        return frame.finish()
    }

    /// `{"type": "pong"}`.
    static let pong = #"{"type":"pong"}"#

    /// `{"type": "error", ...}` for a frame the server could not take; the connection stays open.
    static func error(code: String, message: String, clientId: String? = nil) -> String {
        var frame = JSONObjectWriter()
        frame.add("type", "error")
        frame.add("code", code)
        frame.add("message", message)
        if let clientId { frame.add("clientId", clientId) }
        return frame.finish()
    }
}
