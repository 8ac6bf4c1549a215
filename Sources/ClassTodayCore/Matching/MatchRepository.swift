import Foundation

/// A review one member of a completed match wrote about the other.
public struct Review: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// The match reviewed.
    public let matchId: String
    /// Who wrote it.
    public let reviewerId: String
    /// Who it is about.
    public let revieweeId: String
    /// 0.5 to 5.0 in steps of 0.5.
    public let grade: Double
    /// Free text.
    public let description: String
    /// When it was written.
    public let createdAt: Date

    /// Creates a review value.
    public init(id: String, matchId: String, reviewerId: String, revieweeId: String, grade: Double, description: String, createdAt: Date) {
        self.id = id
        self.matchId = matchId
        self.reviewerId = reviewerId
        self.revieweeId = revieweeId
        self.grade = grade
        self.description = description
        self.createdAt = createdAt
    }
}

/// The outcome of one step of a match: the match after it, the room, and the system message posted with it
/// (stored in the same transaction).
public struct MatchStep: Sendable, Hashable {
    /// The match after the step.
    public let match: Match
    /// The room the match belongs to.
    public let room: ChatRoom
    /// The system message the step posted.
    public let message: ChatMessage
    /// Whether the step made the class open again (a cancel that freed a seat of a full class); the step queued it
    /// for alert fan-out in its transaction.
    public let reopenedClass: Bool

    /// Creates a step.
    public init(match: Match, room: ChatRoom, message: ChatMessage, reopenedClass: Bool) {
        self.match = match
        self.room = room
        self.message = message
        self.reopenedClass = reopenedClass
    }
}

/// Stores matches and reviews. Implementations are named after their backend.
public protocol MatchRepository: Sendable {
    /// Proposes a match in a room, by one of its members, on an open class.
    func propose(roomId: String, by userId: String, terms: MatchTerms, at date: Date) async throws -> MatchStep
    /// Applies `action` by `userId`, updating the class's seats and status in the same transaction.
    func apply(_ action: MatchAction, matchId: String, by userId: String, at date: Date) async throws -> MatchStep
    /// The match with this id.
    func match(id: String) async throws -> Match?
    /// The matches of `userId` (as seller, as buyer, or both), newest first.
    func matches(of userId: String, role: MatchRole?, page: PageRequest) async throws -> Page<Match>
    /// The matches of `userId` still proposed or accepted, oldest first.
    func openMatches(of userId: String) async throws -> [Match]
    /// Records a review of a completed match by one of its members; `409` for a second review.
    func review(matchId: String, by userId: String, grade: Double, description: String, at date: Date) async throws -> Review
    /// The reviews about `userId`, newest first.
    func reviews(of userId: String, page: PageRequest) async throws -> Page<Review>
}
