import ClassTodayCore
import Foundation

/// Matches and reviews, on either backend. Every step is one transaction that also updates the class's seats and
/// status, queues a reopened class for alert fan-out and posts the step's system message in the room
/// (``ChatLog``), so that two members accepting the last seat at the same moment cannot both succeed.
///
/// Where SQLite relies on its single writer, PostgreSQL takes row locks, always in the order match, class, room: a
/// step locks its match (two steps of one match apply one after the other) and its class (of two accepts of the
/// last seat, the second sees the seat taken and gets the conflict), and the message takes the room's lock like any
/// chat writer. A second review by one member finds the unique (match, reviewer) row and gets the conflict.
public struct SQLMatchRepository: MatchRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func propose(roomId: String, by userId: String, terms: MatchTerms, at date: Date) async throws -> MatchStep {
        try await database.transaction { db in
            let rooms = try await ChatLog.lockRooms([roomId], db)
            guard let room = rooms[roomId] else { throw DomainError.notFound("room") }
            if room.isMember(userId) { try await BlockSQL.check(room.sellerId, room.buyerId, db) }
            let listing = try await SeatedListing.read(room.classId, locking: false, db)
            let match = try Match.propose(id: Identifier.make(at: date), in: room, listing: listing?.listing, by: userId,
                                          terms: terms, at: date)
            try await db.execute("""
                INSERT INTO matches (id, room_id, class_id, seller_id, buyer_id, status, proposed_by, days, time, place, lat, lon,
                    price, price_unit, created_at, updated_at)
                VALUES (\(match.id), \(match.roomId), \(match.classId), \(match.sellerId), \(match.buyerId), \(match.status.rawValue),
                    \(match.proposedBy), \(match.terms.days.map(StoredList.encode)), \(match.terms.time), \(match.terms.place),
                    \(match.terms.location?.lat), \(match.terms.location?.lon), \(match.terms.price), \(match.terms.priceUnit?.rawValue),
                    \(date.millisecondsSince1970), \(date.millisecondsSince1970))
                """)
            let message = try await Self.postSystemMessage(for: match, by: userId, rooms: rooms, at: date, db)
            return MatchStep(match: match, room: room, message: message, reopenedClass: false)
        }
    }

    public func apply(_ action: MatchAction, matchId: String, by userId: String, at date: Date) async throws -> MatchStep {
        try await database.transaction { db in
            guard let row = try await db.row("SELECT * FROM matches WHERE id = \(matchId) \(raw: db.dialect.lockForNoKeyUpdate)") else {
                throw DomainError.notFound("match")
            }
            let current = try Match(row: row)
            let next = try current.applying(action, by: userId, at: date)
            if action == .accept { try await BlockSQL.check(current.sellerId, current.buyerId, db) }
            guard let listing = try await SeatedListing.read(current.classId, locking: true, db) else { throw DomainError.notFound("class") }
            let seats = try Match.seatUpdate(from: current.status, to: next.status, listingStatus: listing.listing.status,
                                             seatsTaken: listing.seatsTaken, capacity: listing.listing.capacity)
            if let seats {
                try await db.execute("""
                    UPDATE classes SET seats_taken = \(seats.seatsTaken), status = \(seats.status.rawValue),
                        updated_at = \(date.millisecondsSince1970)
                    WHERE id = \(current.classId)
                    """)
                if seats.reopened {
                    try await db.execute(AlertOutbox.enqueue(classId: current.classId, at: date))
                }
            }
            try await db.execute("UPDATE matches SET status = \(next.status.rawValue), updated_at = \(date.millisecondsSince1970) WHERE id = \(matchId)")
            let rooms = try await ChatLog.lockRooms([current.roomId], db)
            guard let room = rooms[current.roomId] else { throw DomainError.notFound("room") }
            let message = try await Self.postSystemMessage(for: next, by: userId, rooms: rooms, at: date, db)
            return MatchStep(match: next, room: room, message: message, reopenedClass: seats?.reopened ?? false)
        }
    }

    public func match(id: String) async throws -> Match? {
        try await database.row("SELECT * FROM matches WHERE id = \(id)").map(Match.init(row:))
    }

    public func matches(of userId: String, role: MatchRole?, page: PageRequest) async throws -> Page<Match> {
        let source: SQLStatement = switch role {
        case .seller: "SELECT * FROM matches WHERE seller_id = \(userId)"
        case .buyer: "SELECT * FROM matches WHERE buyer_id = \(userId)"
        case nil: "SELECT * FROM matches WHERE seller_id = \(userId) UNION ALL SELECT * FROM matches WHERE buyer_id = \(userId)"
        }
        return try await SQLPage.newestFirst(database, from: source, page: page, ordering: "matches", decode: Match.init(row:))
    }

    public func openMatches(of userId: String) async throws -> [Match] {
        try await database.rows("""
            SELECT * FROM matches WHERE (seller_id = \(userId) OR buyer_id = \(userId))
                AND status IN (\(MatchStatus.proposed.rawValue), \(MatchStatus.accepted.rawValue))
            ORDER BY id
            """).map(Match.init(row:))
    }

    public func review(matchId: String, by userId: String, grade: Double, description: String, at date: Date) async throws -> Review {
        try await database.transaction { db in
            guard let row = try await db.row("SELECT * FROM matches WHERE id = \(matchId)") else { throw DomainError.notFound("match") }
            let reviewee = try Match(row: row).reviewee(of: userId)
            let review = Review(id: Identifier.make(at: date), matchId: matchId, reviewerId: userId, revieweeId: reviewee,
                                grade: grade, description: description, createdAt: date)
            // On PostgreSQL, a review sent twice at once waits here for the first, then inserts nothing.
            let inserted = try await db.rows("""
                INSERT INTO reviews (id, match_id, reviewer_id, reviewee_id, grade, description, created_at)
                VALUES (\(review.id), \(matchId), \(userId), \(reviewee), \(grade), \(description), \(date.millisecondsSince1970))
                ON CONFLICT (match_id, reviewer_id) DO NOTHING
                RETURNING id
                """)
            guard !inserted.isEmpty else { throw ReviewRules.alreadyReviewed }
            try await db.execute("UPDATE users SET rating_sum = rating_sum + \(grade), rating_count = rating_count + 1 WHERE id = \(reviewee)")
            return review
        }
    }

    public func reviews(of userId: String, page: PageRequest) async throws -> Page<Review> {
        try await SQLPage.newestFirst(database, from: "SELECT * FROM reviews WHERE reviewee_id = \(userId)", page: page,
                                      ordering: "reviews") { row in
            Review(id: try row["id"], matchId: try row["match_id"], reviewerId: try row["reviewer_id"], revieweeId: try row["reviewee_id"],
                   grade: try row["grade"], description: try row["description"], createdAt: try row.date("created_at"))
        }
    }

    /// The class of a match with its seat count.
    private struct SeatedListing {
        /// The class.
        let listing: ClassListing
        /// How many of its seats accepted and completed matches hold.
        let seatsTaken: Int

        /// The class `classId` unless deleted; with `locking`, its row stays locked until the transaction ends, so
        /// that the seats read here are still true when updated.
        static func read(_ classId: String, locking: Bool, _ db: any SQLExecutor) async throws -> SeatedListing? {
            let lock = locking ? db.dialect.lockForNoKeyUpdate : ""
            guard let row = try await db.row("SELECT * FROM classes WHERE id = \(classId) AND deleted_at IS NULL \(raw: lock)") else {
                return nil
            }
            return SeatedListing(listing: try ClassListing(row: row), seatsTaken: try row["seats_taken"])
        }
    }

    /// Posts the system message of `match`'s status in its room, which the transaction has locked (`rooms`).
    private static func postSystemMessage(
        for match: Match, by userId: String, rooms: [String: ChatRoom], at date: Date, _ db: any SQLExecutor
    ) async throws -> ChatMessage {
        let outgoing = OutgoingMessage(roomId: match.roomId, senderId: userId, clientId: nil, kind: .system,
                                       text: Match.systemMessage(for: match.status), imageId: nil)
        return try await ChatLog.append([outgoing], rooms: rooms, at: date, db)[0].get().message
    }
}

extension Match {
    /// Decodes a `matches` row.
    init(row: SQLRow) throws {
        let days: String? = try row["days"]
        let priceUnit: String? = try row["price_unit"]
        self.init(
            id: try row["id"], roomId: try row["room_id"], classId: try row["class_id"], sellerId: try row["seller_id"],
            buyerId: try row["buyer_id"], status: MatchStatus(rawValue: try row["status"]) ?? .cancelled,
            proposedBy: try row["proposed_by"],
            terms: MatchTerms(days: days.map { StoredList.decode($0) }, time: try row["time"], place: try row["place"],
                              location: try row.location(), price: try row["price"], priceUnit: priceUnit.flatMap(PriceUnit.init(rawValue:))),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }
}
