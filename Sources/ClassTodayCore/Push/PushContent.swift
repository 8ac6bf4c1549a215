import Foundation

/// What causes a push.
public enum PushKind: String, Sendable, Hashable, Codable {
    /// A chat message (text or image).
    case message
    /// A match step (proposed, accepted, declined, cancelled, completed).
    case match
    /// A saved search found a new class.
    case alert
}

/// One push as both platforms show it: the same title, body, badge and grouping for APNs and FCM.
public struct PushContent: Sendable, Hashable, Codable {
    /// What caused it.
    public var kind: PushKind
    /// The title (the sender's nickname for chat).
    public var title: String
    /// The body (the message, cut).
    public var body: String
    /// The user's total unread count, shown on the app icon.
    public var badge: Int
    /// Groups pushes in the notification centre (APNs `thread-id`, FCM's notification `tag`): one per room.
    public var threadId: String
    /// A newer push with the same collapse id replaces an older one not yet shown (APNs `apns-collapse-id`, FCM's
    /// `collapse_key`).
    public var collapseId: String
    /// Custom keys for the app (`roomId`, `messageId`, `matchId`, `classId`, `kind`).
    public var data: [String: String]

    /// Creates a push.
    public init(kind: PushKind, title: String, body: String, badge: Int, threadId: String, collapseId: String, data: [String: String]) {
        self.kind = kind
        self.title = title
        self.body = body
        self.badge = badge
        self.threadId = threadId
        self.collapseId = collapseId
        self.data = data
    }
}

/// The texts of pushes.
public enum PushText {
    /// The most characters of a message shown in a push body.
    public static let bodyLength = 100
    /// The body of an image message (language-neutral enough: "photo").
    public static let imageBody = "사진"
    /// The title of an alert push.
    public static let alertTitle = "새 수업 알림"
    /// The title when a sender has no nickname left (a deleted account).
    public static let fallbackTitle = "ClassToday"

    /// `text` cut to ``bodyLength`` characters (grapheme clusters, so no emoji or Hangul syllable is split), with an
    /// ellipsis when cut.
    public static func cut(_ text: String) -> String {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.count > bodyLength else { return trimmed }
        return String(trimmed.prefix(bodyLength - 1)) + "…"
    }

    /// The body of an alert push about the class `className`.
    public static func alertBody(className: String) -> String {
        cut("조건에 맞는 수업이 올라왔어요: \(className)")
    }
}

/// How a push service answered one push.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted.
    case sent
    /// The token is no longer valid (APNs 410 `Unregistered` or `BadDeviceToken`, FCM `UNREGISTERED`): delete it.
    case unregistered
    /// A temporary failure (429, 5xx, no connection): try again, not before `retryAfter` seconds when given.
    case retry(retryAfter: Int?)
    /// A failure that trying again cannot fix (a malformed push, a refused credential).
    case failed(reason: String)
}

/// When a failed push is tried again: exponential backoff from `base`, doubling per attempt up to `maximum`, or later
/// when the service asked (`Retry-After`).
public struct PushBackoff: Sendable, Hashable {
    /// The delay after the first failure, in seconds.
    public var base: Double
    /// The longest delay, in seconds.
    public var maximum: Double

    /// Creates a backoff.
    public init(base: Double, maximum: Double) {
        self.base = base
        self.maximum = maximum
    }

    /// The delay in seconds after attempt number `attempt` (1 for the first) failed.
    public func delay(afterAttempt attempt: Int, retryAfter: Int?) -> Double {
        let exponential = min(maximum, base * pow(2, Double(max(0, min(attempt - 1, 30)))))
        return max(exponential, Double(retryAfter ?? 0))
    }
}
