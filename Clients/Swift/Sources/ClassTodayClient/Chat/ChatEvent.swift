/// What the chat client reports to the app, in the order it happened.
public enum ChatEvent: Sendable {
    /// The socket is open (again); rooms were asked for what was missed while it was closed.
    case connected
    /// The socket closed; the client reconnects after a delay.
    case disconnected
    /// A message, once, in seq order within its room (also the user's own messages, after their ack).
    case message(Components.Schemas.Message)
    /// A member read the room up to `seq`.
    case read(roomId: String, userId: String, seq: Int)
    /// A member is typing in the room.
    case typing(roomId: String, userId: String)
    /// A counterpart came online or went offline.
    case presence(userId: String, online: Bool)
    /// A notification (a match step, an alert).
    case notification(Components.Schemas.Notification)
    /// An operator removed a message: it keeps its seq and now reads as removed.
    case removed(roomId: String, messageId: String, seq: Int)
    /// The server refused a frame that was not a send (a send's refusal is thrown by `send`).
    case error(code: String, message: String)
}

/// A send the server refused with an `error` frame naming its clientId.
public struct ChatSendError: Error, Sendable, Hashable {
    /// The server's error code, for example `validation` or `forbidden`.
    public let code: String
    /// The server's explanation.
    public let message: String
    /// The refused send's clientId.
    public let clientId: String
}

/// The chat client was stopped before the server acknowledged a send.
public struct ChatClientStopped: Error, Sendable {}
