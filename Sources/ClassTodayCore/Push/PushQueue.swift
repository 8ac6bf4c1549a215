import Foundation

/// One push claimed for delivery to one device.
public struct PushDelivery: Sendable, Hashable {
    /// The delivery's id.
    public let id: String
    /// The device token.
    public let deviceToken: String
    /// The device's platform.
    public let platform: DevicePlatform
    /// What to show.
    public let content: PushContent
    /// When what caused the push was stored.
    public let queuedAt: Date
    /// How many times it has been claimed, this time included.
    public let attempts: Int

    /// Creates a delivery.
    public init(id: String, deviceToken: String, platform: DevicePlatform, content: PushContent, queuedAt: Date, attempts: Int) {
        self.id = id
        self.deviceToken = deviceToken
        self.platform = platform
        self.content = content
        self.queuedAt = queuedAt
        self.attempts = attempts
    }
}

/// The push outbox and the deliveries it turns into. Pushes are queued (one row per recipient) in the transaction
/// that stores their cause; ``expand(limit:at:online:)`` turns queued pushes into one delivery per device, leaving
/// out recipients who are online, muted the room or block the sender; deliveries are claimed under a lease, so that
/// a node that dies after claiming delays them without losing them.
public protocol PushQueue: Sendable {
    /// Expands at most `limit` queued pushes (oldest first; others' locked rows skipped) into deliveries, in one
    /// transaction. `online` tells which users have a live connection anywhere. Returns how many queued pushes
    /// were taken.
    func expand(limit: Int, at date: Date, online: @Sendable ([String]) async -> Set<String>) async throws -> Int
    /// Claims at most `limit` due deliveries for `lease`: nobody else claims them until it ends. What expansion decided
    /// is decided again first, for every try: deliveries whose recipient is online now (`online`), muted the room,
    /// blocks the sender or is blocked, or whose message was removed, are deleted instead of claimed.
    func claim(limit: Int, at date: Date, lease: Duration, online: @Sendable ([String]) async -> Set<String>) async throws -> [PushDelivery]
    /// Forgets deliveries that were sent, or failed for good.
    func finish(_ ids: [String]) async throws
    /// Makes a delivery due again at `date`.
    func retry(_ id: String, at date: Date) async throws
    /// Deletes the device with `token` (its pending deliveries go with it).
    func prune(deviceToken token: String) async throws
}
