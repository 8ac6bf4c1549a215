import Foundation

/// A stored notification for a user: an alert that a new or reopened class satisfied.
public struct AlertNotification: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// Whose notification it is.
    public let userId: String
    /// The alert that fired.
    public let alertId: String
    /// The class that satisfied it.
    public let classId: String
    /// When it was created.
    public let createdAt: Date
    /// Whether the user marked it read.
    public var read: Bool

    /// Creates a notification value.
    public init(id: String, userId: String, alertId: String, classId: String, createdAt: Date, read: Bool) {
        self.id = id
        self.userId = userId
        self.alertId = alertId
        self.classId = classId
        self.createdAt = createdAt
        self.read = read
    }
}

/// What one ``AlertRepository/fanOut(limit:at:)`` call did.
public struct AlertFanOutBatch: Sendable, Hashable {
    /// How many queued classes were taken off the queue.
    public let classCount: Int
    /// The notifications produced, to push to their owners.
    public let notifications: [AlertNotification]

    /// Creates the value.
    public init(classCount: Int, notifications: [AlertNotification]) {
        self.classCount = classCount
        self.notifications = notifications
    }
}

/// Stores alerts (saved searches), their cell index, and notifications. Implementations are named after their backend.
public protocol AlertRepository: Sendable {
    /// Stores an alert and the cells its circle covers.
    func create(_ alert: Alert) async throws
    /// The alerts of `userId`, newest first.
    func alerts(of userId: String, page: PageRequest) async throws -> Page<Alert>
    /// Deletes an alert of `userId`; 404 when missing, 403 when someone else's.
    func delete(id: String, by userId: String) async throws
    /// Produces the notifications of up to `limit` queued classes, oldest first: for each, one notification per
    /// alert of another user that the class satisfies (candidates found through the cell index, never a scan of
    /// every alert), stored in the transaction that takes the class off the queue.
    func fanOut(limit: Int, at date: Date) async throws -> AlertFanOutBatch
    /// The notifications of `userId`, newest first.
    func notifications(of userId: String, page: PageRequest) async throws -> Page<AlertNotification>
    /// Marks notifications of `userId` read (ids of others are ignored); returns how many changed.
    @discardableResult
    func markRead(ids: [String], userId: String) async throws -> Int
}
