/// Shorter spellings of `POST /v1/chat/rooms/{id}/messages` bodies, whose generated form is an `allOf` of the
/// clientId and a `oneOf` of text or image.
extension Operations.SendMessage.Input.Body.JsonPayload {
    /// A text message; a resend with the same `clientId` answers with the first message.
    public static func text(_ text: String, clientId: String) -> Self {
        Self(value1: .init(clientId: clientId), value2: .case1(.init(text: text)))
    }

    /// An image message, by the id of an image the sender uploaded.
    public static func image(id imageId: String, clientId: String) -> Self {
        Self(value1: .init(clientId: clientId), value2: .case2(.init(imageId: imageId)))
    }
}
