import Foundation

/// A frame the client sends on the chat socket (`GET /v1/chat/ws`), as the API contract describes it.
enum OutgoingChatFrame: Encodable, Sendable {
    /// `{"type": "send", "roomId", "clientId", "text"}` or with `imageId` instead of `text`.
    case send(roomId: String, clientId: String, content: ChatContent)
    /// `{"type": "read", "roomId", "seq"}`.
    case read(roomId: String, seq: Int)
    /// `{"type": "typing", "roomId"}`.
    case typing(roomId: String)
    /// `{"type": "sync", "roomId", "afterSeq"}`: every stored message of the room after `afterSeq`, in order.
    case sync(roomId: String, afterSeq: Int)
    /// `{"type": "ping"}`.
    case ping

    private enum CodingKeys: String, CodingKey {
        case type, roomId, clientId, text, imageId, seq, afterSeq
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .send(let roomId, let clientId, let content):
            try container.encode("send", forKey: .type)
            try container.encode(roomId, forKey: .roomId)
            try container.encode(clientId, forKey: .clientId)
            switch content {
            case .text(let text): try container.encode(text, forKey: .text)
            case .image(let imageId): try container.encode(imageId, forKey: .imageId)
            }
        case .read(let roomId, let seq):
            try container.encode("read", forKey: .type)
            try container.encode(roomId, forKey: .roomId)
            try container.encode(seq, forKey: .seq)
        case .typing(let roomId):
            try container.encode("typing", forKey: .type)
            try container.encode(roomId, forKey: .roomId)
        case .sync(let roomId, let afterSeq):
            try container.encode("sync", forKey: .type)
            try container.encode(roomId, forKey: .roomId)
            try container.encode(afterSeq, forKey: .afterSeq)
        case .ping:
            try container.encode("ping", forKey: .type)
        }
    }

    /// The frame as the JSON text the socket carries.
    func jsonText() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }
}

/// What a chat message carries: text, or an image uploaded with `POST /v1/images`.
public enum ChatContent: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// An image message, by the uploaded image's id.
    case image(id: String)
}

/// The server's acknowledgement of a sent message: it is durably stored with this seq.
public struct ChatAck: Sendable, Hashable, Decodable {
    /// The sender's id for the send.
    public let clientId: String
    /// The room the message went to.
    public let roomId: String
    /// The message's place in its room.
    public let seq: Int
    /// The stored message's id.
    public let messageId: String
    /// When the server stored it.
    public let sentAt: Date
}

/// A frame the server sends on the chat socket, decoded by its `type`.
enum IncomingChatFrame: Sendable {
    /// A sent message is stored.
    case ack(ChatAck)
    /// Something to tell the app: a message, a read mark, typing, presence, a notification, a removal.
    case event(ChatEvent)
    /// The answer to a `ping`.
    case pong
    /// A frame the server could not take; the connection stays open.
    case error(code: String, message: String, clientId: String?)
    /// A frame type this client does not know (a newer server); skipped.
    case unknown(type: String)

    /// Decodes a text frame.
    static func decode(_ text: String) throws -> IncomingChatFrame {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Envelope.self, from: Data(text.utf8)).frame
    }

    private struct Envelope: Decodable {
        let frame: IncomingChatFrame

        private enum CodingKeys: String, CodingKey {
            case type, roomId, userId, seq, online, message, notification, messageId, code, clientId
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func string(_ key: CodingKeys) throws -> String { try container.decode(String.self, forKey: key) }
            let type = try string(.type)
            switch type {
            case "ack":
                frame = .ack(try ChatAck(from: decoder))
            case "message":
                frame = .event(.message(try container.decode(Components.Schemas.Message.self, forKey: .message)))
            case "read":
                frame = .event(.read(roomId: try string(.roomId), userId: try string(.userId), seq: try container.decode(Int.self, forKey: .seq)))
            case "typing":
                frame = .event(.typing(roomId: try string(.roomId), userId: try string(.userId)))
            case "presence":
                frame = .event(.presence(userId: try string(.userId), online: try container.decode(Bool.self, forKey: .online)))
            case "notification":
                frame = .event(.notification(try container.decode(Components.Schemas.Notification.self, forKey: .notification)))
            case "removed":
                frame = .event(.removed(roomId: try string(.roomId), messageId: try string(.messageId), seq: try container.decode(Int.self, forKey: .seq)))
            case "pong":
                frame = .pong
            case "error":
                frame = .error(code: try string(.code), message: try string(.message), clientId: try container.decodeIfPresent(String.self, forKey: .clientId))
            default:
                frame = .unknown(type: type)
            }
        }
    }
}
