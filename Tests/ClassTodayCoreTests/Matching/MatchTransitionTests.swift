import Foundation
import Testing
@testable import ClassTodayCore

/// Tests for the match state machine: ``Match/transition(_:by:from:proposedBy:sellerId:buyerId:)`` and seats.
@Suite("Match transitions")
struct MatchTransitionTests {
    /// Who takes an action, relative to the match.
    enum Actor: String, CaseIterable, CustomTestStringConvertible {
        /// The member who proposed.
        case proposer
        /// The other member.
        case invitee
        /// Someone outside the match.
        case outsider

        /// The actor's name in test output.
        var testDescription: String { rawValue }
    }

    /// The only legal moves, written out independently of the implementation.
    static let legalMoves: [MatchStatus: [MatchAction: [Actor: MatchStatus]]] = [
        .proposed: [
            .accept: [.invitee: .accepted],
            .decline: [.invitee: .declined],
            .cancel: [.proposer: .cancelled, .invitee: .cancelled],
        ],
        .accepted: [
            .cancel: [.proposer: .cancelled, .invitee: .cancelled],
            .complete: [.proposer: .completed, .invitee: .completed],
        ],
    ]

    /// Checks every status × action × actor, with the seller and with the buyer as proposer.
    @Test("every status, action and actor", arguments: MatchStatus.allCases, MatchAction.allCases)
    func table(status: MatchStatus, action: MatchAction) throws {
        for sellerProposed in [true, false] {
            let proposer = sellerProposed ? "seller" : "buyer"
            let invitee = sellerProposed ? "buyer" : "seller"
            for actor in Actor.allCases {
                let userId = switch actor {
                case .proposer: proposer
                case .invitee: invitee
                case .outsider: "stranger"
                }
                let result = Result { () throws(DomainError) -> MatchStatus in
                    try Match.transition(action, by: userId, from: status, proposedBy: proposer,
                                         sellerId: "seller", buyerId: "buyer")
                }
                let context: Comment = "\(status) \(action) by \(actor), proposer \(proposer)"
                switch (actor, Self.legalMoves[status]?[action]?[actor]) {
                case (.outsider, _):
                    guard case .failure(.forbidden) = result else {
                        Issue.record("expected forbidden, got \(result): \(context)")
                        continue
                    }
                case (_, .some(let expected)):
                    #expect(try result.get() == expected, context)
                case (_, .none):
                    guard case .failure(.conflict) = result else {
                        Issue.record("expected conflict, got \(result): \(context)")
                        continue
                    }
                }
            }
        }
    }

    /// Checks that the legal-move table has the eight moves the rules describe.
    @Test("eight legal moves in all")
    func legalMoveCount() {
        let count = Self.legalMoves.values.flatMap(\.values).reduce(0) { $0 + $1.count }
        #expect(count == 8)
    }

    /// Checks that final statuses admit no action and the others admit some.
    @Test("final statuses admit no action", arguments: MatchStatus.allCases)
    func finality(status: MatchStatus) {
        let possible = MatchAction.allCases.contains { action in
            ["seller", "buyer"].contains { userId in
                (try? Match.transition(action, by: userId, from: status, proposedBy: "seller",
                                       sellerId: "seller", buyerId: "buyer")) != nil
            }
        }
        #expect(possible == !status.isFinal)
    }

    /// Checks that `applying` returns the new match and stamps the date, and leaves nothing changed on error.
    @Test("applying an action updates status and date")
    func applying() throws {
        let created = MatchingTestSupport.date
        let later = created.addingTimeInterval(60)
        let match = try Match.propose(id: "m1", roomId: "r1", classId: "c1", sellerId: "s", buyerId: "b", by: "s",
                                      terms: .unspecified, at: created)
        #expect(match.status == .proposed)
        #expect(match.createdAt == created && match.updatedAt == created)

        let accepted = try match.applying(.accept, by: "b", at: later)
        #expect(accepted.status == .accepted)
        #expect(accepted.updatedAt == later)
        #expect(accepted.createdAt == created)
        #expect(accepted.id == match.id && accepted.proposedBy == "s")

        #expect(throws: DomainError.self) { try match.applying(.accept, by: "s", at: later) }
        #expect(throws: DomainError.self) { try accepted.applying(.accept, by: "b", at: later) }
        let completed = try accepted.applying(.complete, by: "s", at: later)
        #expect(completed.status == .completed)
    }

    /// Checks that only a member can propose.
    @Test("only members can propose")
    func proposeMembership() {
        #expect(throws: DomainError.forbidden("only a member of the chat room can propose a match")) {
            try Match.propose(id: "m", roomId: "r", classId: "c", sellerId: "s", buyerId: "b", by: "x",
                              terms: .unspecified, at: MatchingTestSupport.date)
        }
        #expect((try? Match.propose(id: "m", roomId: "r", classId: "c", sellerId: "s", buyerId: "b", by: "b",
                                    terms: .unspecified, at: MatchingTestSupport.date))?.proposedBy == "b")
    }

    /// Checks membership, counterpart and role lookups.
    @Test("members, counterparts and roles")
    func members() {
        let match = Match(id: "m", roomId: "r", classId: "c", sellerId: "s", buyerId: "b", status: .proposed,
                          proposedBy: "s", terms: .unspecified, createdAt: MatchingTestSupport.date,
                          updatedAt: MatchingTestSupport.date)
        #expect(match.isMember("s") && match.isMember("b") && !match.isMember("x"))
        #expect(match.counterpart(of: "s") == "b")
        #expect(match.counterpart(of: "b") == "s")
        #expect(match.counterpart(of: "x") == nil)
        #expect(match.role(of: "s") == .seller)
        #expect(match.role(of: "b") == .buyer)
        #expect(match.role(of: "x") == nil)
        #expect(match.memberIds == ["s", "b"])
    }

    /// Checks the seat change of every pair of statuses.
    @Test("seat changes", arguments: MatchStatus.allCases, MatchStatus.allCases)
    func seatChange(from: MatchStatus, to: MatchStatus) {
        let holding: Set<MatchStatus> = [.accepted, .completed]
        let expected = (holding.contains(to) ? 1 : 0) - (holding.contains(from) ? 1 : 0)
        #expect(Match.seatChange(from: from, to: to) == expected)
    }

    /// Checks the seat changes of the named transitions.
    @Test("accept fills a seat, cancelling an accepted match frees it")
    func namedSeatChanges() {
        #expect(Match.seatChange(from: .proposed, to: .accepted) == 1)
        #expect(Match.seatChange(from: .accepted, to: .cancelled) == -1)
        #expect(Match.seatChange(from: .proposed, to: .cancelled) == 0)
        #expect(Match.seatChange(from: .proposed, to: .declined) == 0)
        #expect(Match.seatChange(from: .accepted, to: .completed) == 0)
    }

    /// Checks that along every legal path the seats taken stay 0 or 1 and end as the final status says.
    @Test("seat count along every legal path")
    func seatPaths() {
        var stack: [(MatchStatus, Int)] = [(.proposed, 0)]
        var paths = 0
        while let (status, seats) = stack.popLast() {
            #expect((0...1).contains(seats))
            #expect(seats == (status.fillsSeat ? 1 : 0))
            let next = MatchAction.allCases.compactMap { action in
                try? Match.transition(action, by: "buyer", from: status, proposedBy: "seller",
                                      sellerId: "seller", buyerId: "buyer")
            }
            if next.isEmpty { paths += 1 }
            for status2 in next {
                stack.append((status2, seats + Match.seatChange(from: status, to: status2)))
            }
        }
        #expect(paths == 4) // declined, cancelled (twice), completed
    }

    /// Checks the listing status that follows the number of seats taken.
    @Test("listing status follows the seats taken")
    func listingStatus() {
        #expect(Match.listingStatus(.open, seatsTaken: 0, capacity: 1) == .open)
        #expect(Match.listingStatus(.open, seatsTaken: 1, capacity: 1) == .matched)
        #expect(Match.listingStatus(.open, seatsTaken: 2, capacity: 3) == .open)
        #expect(Match.listingStatus(.matched, seatsTaken: 2, capacity: 3) == .open)
        #expect(Match.listingStatus(.matched, seatsTaken: 3, capacity: 3) == .matched)
        #expect(Match.listingStatus(.closed, seatsTaken: 3, capacity: 3) == .closed)
        #expect(Match.listingStatus(.closed, seatsTaken: 0, capacity: 3) == .closed)
    }

    /// Checks the guards on proposing and accepting.
    @Test("proposals need an open class, acceptance a free seat")
    func guards() {
        #expect(throws: Never.self) { try Match.checkCanPropose(listingStatus: .open) }
        #expect(throws: DomainError.self) { try Match.checkCanPropose(listingStatus: .matched) }
        #expect(throws: DomainError.self) { try Match.checkCanPropose(listingStatus: .closed) }
        #expect(throws: Never.self) { try Match.checkSeatAvailable(listingStatus: .open, seatsTaken: 1, capacity: 2) }
        #expect(throws: DomainError.self) {
            try Match.checkSeatAvailable(listingStatus: .open, seatsTaken: 2, capacity: 2)
        }
        #expect(throws: DomainError.self) {
            try Match.checkSeatAvailable(listingStatus: .closed, seatsTaken: 0, capacity: 2)
        }
    }

    /// Checks what a step does to its class: seats taken and freed, the class filling up and reopening.
    @Test("a step's seat update: accepting fills the last seat, cancelling reopens, other steps change nothing")
    func seatUpdates() throws {
        let filled = try Match.seatUpdate(from: .proposed, to: .accepted, listingStatus: .open, seatsTaken: 1, capacity: 2)
        #expect(filled == Match.SeatUpdate(seatsTaken: 2, status: .matched, reopened: false))
        let freed = try Match.seatUpdate(from: .accepted, to: .cancelled, listingStatus: .matched, seatsTaken: 2, capacity: 2)
        #expect(freed == Match.SeatUpdate(seatsTaken: 1, status: .open, reopened: true))
        let closed = try Match.seatUpdate(from: .accepted, to: .cancelled, listingStatus: .closed, seatsTaken: 1, capacity: 2)
        #expect(closed == Match.SeatUpdate(seatsTaken: 0, status: .closed, reopened: false))
        let declined = try Match.seatUpdate(from: .proposed, to: .declined, listingStatus: .open, seatsTaken: 0, capacity: 1)
        #expect(declined == nil)
        let completed = try Match.seatUpdate(from: .accepted, to: .completed, listingStatus: .matched, seatsTaken: 1, capacity: 1)
        #expect(completed == nil)
        #expect(throws: DomainError.self) {
            try Match.seatUpdate(from: .proposed, to: .accepted, listingStatus: .matched, seatsTaken: 1, capacity: 1)
        }
    }

    /// Checks that every status has its own Korean system message.
    @Test("system messages are distinct Korean sentences")
    func systemMessages() {
        let messages = MatchStatus.allCases.map { Match.systemMessage(for: $0) }
        #expect(Set(messages).count == MatchStatus.allCases.count)
        for message in messages {
            #expect(message.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) })
        }
        #expect(Match.systemMessage(for: .proposed) == "매칭을 제안했어요")
        #expect(Match.systemMessage(for: .accepted) == "매칭이 성사됐어요")
    }

    /// Checks that the API's action and status names round-trip.
    @Test("raw values are the API's names")
    func rawValues() {
        #expect(MatchStatus.allCases.map(\.rawValue) == ["proposed", "accepted", "declined", "cancelled", "completed"])
        #expect(MatchAction.allCases.map(\.rawValue) == ["accept", "decline", "cancel", "complete"])
        #expect(MatchAction(rawValue: "accept")?.resultingStatus == .accepted)
    }
}

/// Tests for ``MatchTerms``.
@Suite("Match terms")
struct MatchTermsTests {
    /// The fields with errors after checking `terms`.
    private func errorFields(_ terms: MatchTerms) -> [String] {
        var validator = FieldValidator()
        terms.check(into: &validator)
        return validator.errors.map(\.field)
    }

    /// Checks that valid and absent terms pass.
    @Test("valid terms pass")
    func valid() {
        #expect(errorFields(.unspecified).isEmpty)
        #expect(errorFields(MatchTerms(days: [.mon, .fri], time: "19:00-21:00", place: "관악구 봉천동",
                                       location: GeoPoint(lat: 37.48, lon: 126.95), price: 0,
                                       priceUnit: .perClass)).isEmpty)
        #expect(errorFields(MatchTerms(location: GeoPoint(lat: -90, lon: 180), price: 100_000_000)).isEmpty)
    }

    /// Checks that every invalid field is reported under its API name.
    @Test("invalid fields are reported by name")
    func invalid() {
        #expect(errorFields(MatchTerms(days: [.mon, .mon])) == ["days"])
        #expect(errorFields(MatchTerms(time: "21:00-19:00")) == ["time"])
        #expect(errorFields(MatchTerms(time: "7pm")) == ["time"])
        #expect(errorFields(MatchTerms(place: String(repeating: "가", count: 201))) == ["place"])
        #expect(errorFields(MatchTerms(place: "   ")) == [])
        #expect(errorFields(MatchTerms(location: GeoPoint(lat: 91, lon: 0))) == ["location.lat"])
        #expect(errorFields(MatchTerms(location: GeoPoint(lat: .nan, lon: .infinity))) == ["location.lat", "location.lon"])
        #expect(errorFields(MatchTerms(price: -1)) == ["price"])
        #expect(errorFields(MatchTerms(price: 100_000_001)) == ["price"])
        #expect(errorFields(MatchTerms(days: [.sun, .sun], time: "x", price: -5)) == ["days", "time", "price"])
    }

    /// Checks that absent terms are taken from the listing and present ones kept.
    @Test("absent terms default to the listing's")
    func defaults() {
        var listing = MatchingTestSupport.listing(days: [.tue], price: 40_000, priceUnit: .perClass)
        listing.time = "10:00-12:00"
        listing.place = "신림역"
        let terms = MatchTerms(days: [.sat], price: 35_000).defaulted(from: listing)
        #expect(terms == MatchTerms(days: [.sat], time: "10:00-12:00", place: "신림역",
                                    location: MatchingTestSupport.seoul, price: 35_000, priceUnit: .perClass))
    }
}
