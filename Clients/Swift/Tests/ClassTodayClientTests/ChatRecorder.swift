import ClassTodayClient

/// Reads a chat client's events in the background and keeps them for a test to inspect.
actor ChatRecorder {
    /// The message events, in the order they arrived.
    private(set) var messages: [Components.Schemas.Message] = []
    /// How many times the socket opened.
    private(set) var connections = 0
    /// How many times it closed.
    private(set) var disconnections = 0
    /// Notifications that arrived over the socket.
    private(set) var notifications: [Components.Schemas.Notification] = []

    /// Starts reading `chat`'s events until the stream ends.
    init(_ chat: ChatClient) {
        Task { [events = chat.events] in
            for await event in events { await self.record(event) }
        }
    }

    private func record(_ event: ChatEvent) {
        switch event {
        case .connected: connections += 1
        case .disconnected: disconnections += 1
        case .message(let message): messages.append(message)
        case .notification(let notification): notifications.append(notification)
        default: break
        }
    }
}
