import ClassTodayCore
import Foundation

/// A ``ChatMessage`` as a JSON object (dates in milliseconds): how messages travel between nodes in
/// ``PostgresChatBus`` notifications.
struct MessageJSON: Decodable {
    let id, roomId, senderId, kind: String
    let seq: Int
    let text, imageId, clientId: String?
    let sentAt: Int64

    /// The JSON form of `message`.
    init(_ message: ChatMessage) {
        (id, roomId, senderId, kind, seq) = (message.id, message.roomId, message.senderId, message.kind.rawValue, message.seq)
        (text, imageId, clientId, sentAt) = (message.text, message.imageId, message.clientId, message.sentAt.millisecondsSince1970)
    }

    /// The message.
    var message: ChatMessage {
        ChatMessage(id: id, roomId: roomId, seq: seq, senderId: senderId, kind: MessageKind(rawValue: kind) ?? .text,
                    text: text, imageId: imageId, clientId: clientId, sentAt: Date(millisecondsSince1970: sentAt))
    }

    /// The object's JSON text.
    var json: String {
        var object = JSONObjectWriter()
        object.add("id", id)
        object.add("roomId", roomId)
        object.add("seq", seq)
        object.add("senderId", senderId)
        object.add("kind", kind)
        object.add("text", text)
        object.add("imageId", imageId)
        object.add("clientId", clientId)
        object.add("sentAt", sentAt)
        return object.finish()
    }
}
