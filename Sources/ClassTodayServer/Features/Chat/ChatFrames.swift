import ClassTodayCore
import Foundation
import Hummingbird

/// A message object as the API shows it.
struct MessageResponse: ResponseEncodable {
    let message: ChatMessage

    private enum CodingKeys: String, CodingKey {
        case id, roomId, seq, senderId, kind, text, imageUrl, clientId, sentAt
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
        try container.encode(message.clientId, forKey: .clientId)
        try container.encode(message.sentAt, forKey: .sentAt)
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
enum ServerFrame {
    private struct Ack: Encodable {
        let type = "ack"
        let clientId: String?
        let roomId: String
        let seq: Int
        let messageId: String
        let sentAt: Date
    }

    private struct Message: Encodable {
        let type = "message"
        let roomId: String
        let message: MessageResponse
    }

    private struct Read: Encodable {
        let type = "read"
        let roomId: String
        let userId: String
        let seq: Int
    }

    private struct Typing: Encodable {
        let type = "typing"
        let roomId: String
        let userId: String
    }

    private struct Presence: Encodable {
        let type = "presence"
        let userId: String
        let online: Bool
    }

    private struct Failure: Encodable {
        let type = "error"
        let code: String
        let message: String
        let clientId: String?
    }

    /// `{"type": "ack", ...}` for a stored message.
    static func ack(_ message: ChatMessage) -> String {
        encode(Ack(clientId: message.clientId, roomId: message.roomId, seq: message.seq, messageId: message.id, sentAt: message.sentAt))
    }

    /// `{"type": "message", ...}`.
    static func message(_ message: ChatMessage) -> String {
        encode(Message(roomId: message.roomId, message: MessageResponse(message: message)))
    }

    /// `{"type": "read", ...}`.
    static func read(roomId: String, userId: String, seq: Int) -> String {
        encode(Read(roomId: roomId, userId: userId, seq: seq))
    }

    /// `{"type": "typing", ...}`.
    static func typing(roomId: String, userId: String) -> String {
        encode(Typing(roomId: roomId, userId: userId))
    }

    /// `{"type": "presence", ...}`.
    static func presence(userId: String, online: Bool) -> String {
        encode(Presence(userId: userId, online: online))
    }

    /// `{"type": "notification", "notification": {...}}` around an already encoded notification.
    static func notification(json: String) -> String {
        #"{"notification":"# + json + #","type":"notification"}"#
    }

    /// `{"type": "pong"}`.
    static let pong = #"{"type":"pong"}"#

    /// `{"type": "error", ...}` for a frame the server could not take; the connection stays open.
    static func error(code: String, message: String, clientId: String? = nil) -> String {
        encode(Failure(code: code, message: message, clientId: clientId))
    }

    private static func encode(_ value: some Encodable) -> String {
        value.apiJSONText
    }
}
