import Foundation

/// A user someone blocked, as their block list shows them.
public struct BlockedUser: Sendable, Hashable {
    /// The blocked user, as shown next to what they wrote.
    public let user: WriterSummary
    /// When the block was made.
    public let blockedAt: Date

    /// Creates an entry.
    public init(user: WriterSummary, blockedAt: Date) {
        self.user = user
        self.blockedAt = blockedAt
    }
}

/// The rules of blocking. A block works in both directions: once A blocks B, neither sees the other's listings in
/// any search, list, recommendation or alert, neither can open a room with or message the other (existing rooms
/// stay readable), and their pending match proposals are declined.
public enum BlockRules {
    /// Throws unless `blockerId` may block `blockedId` (nobody blocks themselves).
    public static func checkBlock(_ blockedId: String, by blockerId: String) throws {
        if blockedId == blockerId { throw DomainError.invalid("id", "you cannot block yourself") }
    }

    /// The error for an action between two users one of whom blocked the other.
    public static let blocked = DomainError.forbidden("one of you blocked the other")
}

/// Stores blocks. Implementations are named after their backend.
public protocol BlockRepository: Sendable {
    /// Records that `blockerId` blocked `blockedId` (idempotent: a second block keeps the first time) and declines
    /// their pending match proposals in the same transaction; returns the declined steps, to publish. Throws
    /// ``DomainError/notFound(_:)`` for an unknown user.
    func block(_ blockedId: String, by blockerId: String, at date: Date) async throws -> [MatchStep]
    /// Lifts `blockerId`'s block of `blockedId`, if any (idempotent); a block the other made stays.
    func unblock(_ blockedId: String, by blockerId: String) async throws
    /// The users `userId` blocked, most recent first.
    func blocks(of userId: String, page: PageRequest) async throws -> Page<BlockedUser>
}
