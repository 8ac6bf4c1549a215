import ClassTodayCore
import Foundation
import Hummingbird

/// A message object as the API shows it.
struct MessageResponse: ResponseEncodable {
    let message: ChatMessage

    private enum CodingKeys: String, CodingKey {
        case id, roomId, seq, senderId, kind, text, imageUrl, imageVariants, clientId, sentAt, removed
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message.id, forKey: .id)
        try container.encode(message.roomId, forKey: .roomId)
        try container.encode(message.seq, forKey: .seq)
        try container.encode(message.senderId, forKey: .senderId)
        try container.encode(message.kind, forKey: .kind)
        try container.encode(message.text, forKey: .text)
        try container.encode(message.imageId.map(ImageURL.path(for:)), forKey: .imageUrl)
        try container.encode(message.imageId.map(ImageVariantLinks.init(imageId:)), forKey: .imageVariants)
        try container.encode(message.clientId, forKey: .clientId)
        try container.encode(message.sentAt, forKey: .sentAt)
        try container.encode(message.removed, forKey: .removed)
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
        object.add("imageVariants", json: message.imageId.map { ImageVariantLinks(imageId: $0).jsonText } ?? "null")
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
