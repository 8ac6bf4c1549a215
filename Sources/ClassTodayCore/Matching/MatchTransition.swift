import Foundation

/// What a member can do to a match (`POST /v1/matches/{id}/{action}`).
public enum MatchAction: String, Sendable, CaseIterable, Hashable {
    /// Agree to a proposal; only the member who did not propose, only while `proposed`.
    case accept
    /// Refuse a proposal; only the member who did not propose, only while `proposed`.
    case decline
    /// Call the match off; either member, while `proposed` or `accepted`.
    case cancel
    /// Mark the class as given; either member, only once `accepted`.
    case complete

    /// The status a successful action leads to.
    public var resultingStatus: MatchStatus {
        switch self {
        case .accept: .accepted
        case .decline: .declined
        case .cancel: .cancelled
        case .complete: .completed
        }
    }

    /// The statuses the action may be taken from.
    public var allowedSources: Set<MatchStatus> {
        switch self {
        case .accept, .decline: [.proposed]
        case .cancel: [.proposed, .accepted]
        case .complete: [.accepted]
        }
    }

    /// Whether only the member who did not propose may take the action.
    public var isReservedForInvitee: Bool {
        self == .accept || self == .decline
    }
}

extension Match {
    /// The status after `userId` takes `action` on a match in `status`.
    ///
    /// The rules:
    /// - `accept` and `decline`: only from `proposed`, only by the member other than `proposedBy`;
    /// - `cancel`: from `proposed` or `accepted`, by either member;
    /// - `complete`: only from `accepted`, by either member.
    ///
    /// - Throws: ``DomainError/forbidden(_:)`` when `userId` is neither `sellerId` nor `buyerId` (checked
    ///   first), ``DomainError/conflict(_:)`` for any other action the rules do not allow (409).
    public static func transition(
        _ action: MatchAction, by userId: String, from status: MatchStatus, proposedBy: String, sellerId: String,
        buyerId: String
    ) throws(DomainError) -> MatchStatus {
        guard userId == sellerId || userId == buyerId else {
            throw .forbidden("only a member of the match can \(action.rawValue) it")
        }
        guard action.allowedSources.contains(status) else {
            throw .conflict("cannot \(action.rawValue) a match that is \(status.rawValue)")
        }
        if action.isReservedForInvitee, userId == proposedBy {
            throw .conflict("only the member who did not propose the match can \(action.rawValue) it")
        }
        return action.resultingStatus
    }

    /// This match after `userId` takes `action` at `date` (see
    /// ``transition(_:by:from:proposedBy:sellerId:buyerId:)`` for the rules and errors).
    public func applying(_ action: MatchAction, by userId: String, at date: Date) throws(DomainError) -> Match {
        var next = self
        next.status = try Match.transition(
            action, by: userId, from: status, proposedBy: proposedBy, sellerId: sellerId, buyerId: buyerId
        )
        next.updatedAt = date
        return next
    }

    /// The match declined because one member blocked the other: a pending proposal ends, whoever made it; nil for a
    /// match past its proposal (an accepted match keeps its seat until a member cancels it).
    public func declinedByBlock(at date: Date) -> Match? {
        guard status == .proposed else { return nil }
        var next = self
        next.status = .declined
        next.updatedAt = date
        return next
    }

    /// How the number of seats taken on the class changes when a match goes from `from` to `to`:
    /// +1 when it starts filling a seat (accept), -1 when it stops (cancel of an accepted match), else 0.
    public static func seatChange(from: MatchStatus, to: MatchStatus) -> Int {
        (to.fillsSeat ? 1 : 0) - (from.fillsSeat ? 1 : 0)
    }

    /// The listing's status once `seatsTaken` of its `capacity` seats are filled: a closed listing stays
    /// closed; otherwise it is `matched` when every seat is taken and `open` when one is free (so a cancel
    /// reopens a full class).
    public static func listingStatus(_ current: ClassStatus, seatsTaken: Int, capacity: Int) -> ClassStatus {
        if current == .closed { return .closed }
        return seatsTaken >= capacity ? .matched : .open
    }

    /// Checks that a match can be proposed on a listing in `listingStatus`.
    ///
    /// - Throws: ``DomainError/conflict(_:)`` unless the listing is `open`.
    public static func checkCanPropose(listingStatus: ClassStatus) throws(DomainError) {
        switch listingStatus {
        case .open: return
        case .matched: throw .conflict("every seat of the class is taken")
        case .closed: throw .conflict("the class is closed")
        }
    }

    /// Checks that accepting a match can take a seat of a listing in `listingStatus` with `seatsTaken` of
    /// `capacity` seats filled.
    ///
    /// - Throws: ``DomainError/conflict(_:)`` when the listing is closed or has no free seat.
    public static func checkSeatAvailable(
        listingStatus: ClassStatus, seatsTaken: Int, capacity: Int
    ) throws(DomainError) {
        if listingStatus == .closed { throw .conflict("the class is closed") }
        if seatsTaken >= capacity { throw .conflict("every seat of the class is taken") }
    }

    /// What a match's step from `from` to `to` does to its listing's seats.
    public struct SeatUpdate: Sendable, Hashable {
        /// The listing's filled seats after the step.
        public let seatsTaken: Int
        /// The listing's status after the step.
        public let status: ClassStatus
        /// Whether the step freed a seat of a full listing, which is open again.
        public let reopened: Bool
    }

    /// The seats and status a listing (now `listingStatus`, `seatsTaken` of `capacity` seats filled) has after a
    /// match moves from `from` to `to`; nil when the step neither takes nor frees a seat.
    ///
    /// - Throws: ``DomainError/conflict(_:)`` when the step takes a seat the listing does not have free.
    public static func seatUpdate(
        from: MatchStatus, to: MatchStatus, listingStatus: ClassStatus, seatsTaken: Int, capacity: Int
    ) throws(DomainError) -> SeatUpdate? {
        let change = seatChange(from: from, to: to)
        guard change != 0 else { return nil }
        if change > 0 {
            try checkSeatAvailable(listingStatus: listingStatus, seatsTaken: seatsTaken, capacity: capacity)
        }
        let taken = max(0, seatsTaken + change)
        let status = Self.listingStatus(listingStatus, seatsTaken: taken, capacity: capacity)
        return SeatUpdate(seatsTaken: taken, status: status, reopened: listingStatus == .matched && status == .open)
    }

    /// The system message posted in the chat room when a match reaches `status`.
    public static func systemMessage(for status: MatchStatus) -> String {
        switch status {
        case .proposed: "매칭을 제안했어요"
        case .accepted: "매칭이 성사됐어요"
        case .declined: "매칭 제안을 거절했어요"
        case .cancelled: "매칭이 취소됐어요"
        case .completed: "수업을 마쳤어요. 서로에게 후기를 남겨 주세요"
        }
    }
}
