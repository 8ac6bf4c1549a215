import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Matches and reviews stored in PostgreSQL; the port of ``SQLiteMatchRepository``. Every step is one transaction
/// that also updates the class's seats and status and posts the step's system message in the room.
///
/// Where SQLite relies on its single writer, this takes row locks, always in the order match, class, room: a step
/// locks its match (two steps of one match apply one after the other) and its class (two members accepting the
/// last seat at the same moment: the second sees the seat taken and gets the same conflict as in SQLite), and
/// the message takes the room's lock like any chat writer. A second review by one member hits the unique
/// (match, reviewer) constraint and gets the same conflict as in SQLite.
public struct PostgresMatchRepository: MatchRepository {
    private let client: PostgresClient
    private let logger = Logger(label: "classtoday.postgres.matches")

    /// Creates the repository over an open store.
    public init(store: PostgresStore) {
        self.client = store.client
    }

    public func propose(roomId: String, by userId: String, terms: MatchTerms, at date: Date) async throws -> MatchStep {
        try await PostgresRows.transaction(client, logger: logger) { [logger] connection in
            let rooms = try await PostgresChatRepository.lockRooms([roomId], connection, logger)
            guard let room = rooms[roomId] else { throw DomainError.notFound("room") }
            try Match.checkProposer(userId, sellerId: room.sellerId, buyerId: room.buyerId)
            let listing = try await Self.listing(room.classId, locking: false, connection, logger)
            try Match.checkCanPropose(listingStatus: listing.status)
            let match = try Match.propose(id: Identifier.make(at: date), roomId: room.id, classId: room.classId, sellerId: room.sellerId,
                                          buyerId: room.buyerId, by: userId, terms: terms.defaulted(from: listing.listing), at: date)
            try await connection.query(Self.insertQuery(match, at: date), logger: logger)
            let message = try await Self.postSystemMessage(for: match, by: userId, rooms: rooms, at: date, connection, logger)
            return MatchStep(match: match, room: room, message: message, reopenedClass: false)
        }
    }

    /// The statement inserting the row of `match`, proposed at `date`.
    private static func insertQuery(_ match: Match, at date: Date) -> PostgresQuery {
        let milliseconds = date.millisecondsSince1970
        return """
            INSERT INTO matches (id, room_id, class_id, seller_id, buyer_id, status, proposed_by, days, time, place, lat, lon,
                price, price_unit, created_at, updated_at)
            VALUES (\(match.id), \(match.roomId), \(match.classId), \(match.sellerId), \(match.buyerId), \(match.status.rawValue),
                \(match.proposedBy), \(match.terms.days.map(StoredList.encode)), \(match.terms.time), \(match.terms.place),
                \(match.terms.location?.lat), \(match.terms.location?.lon), \(match.terms.price), \(match.terms.priceUnit?.rawValue),
                \(milliseconds), \(milliseconds))
            """
    }

    public func apply(_ action: MatchAction, matchId: String, by userId: String, at date: Date) async throws -> MatchStep {
        try await PostgresRows.transaction(client, logger: logger) { [logger] connection in
            guard let row = try await PostgresRows.all(connection.query(
                "SELECT * FROM matches WHERE id = \(matchId) FOR NO KEY UPDATE", logger: logger)).first
            else { throw DomainError.notFound("match") }
            let current = try Self.match(row: row)
            let next = try current.applying(action, by: userId, at: date)
            let listing = try await Self.listing(current.classId, locking: true, connection, logger)
            let seats = try Match.seatUpdate(from: current.status, to: next.status, listingStatus: listing.status,
                                             seatsTaken: listing.seatsTaken, capacity: listing.capacity)
            if let seats {
                try await connection.query("""
                    UPDATE classes SET seats_taken = \(seats.seatsTaken), status = \(seats.status.rawValue),
                        updated_at = \(date.millisecondsSince1970)
                    WHERE id = \(current.classId)
                    """, logger: logger)
                if seats.reopened {
                    try await connection.query(PostgresDatabase.query(AlertOutbox.enqueue(classId: current.classId, at: date)), logger: logger)
                }
            }
            try await connection.query(
                "UPDATE matches SET status = \(next.status.rawValue), updated_at = \(date.millisecondsSince1970) WHERE id = \(matchId)",
                logger: logger)
            let rooms = try await PostgresChatRepository.lockRooms([current.roomId], connection, logger)
            guard let room = rooms[current.roomId] else { throw DomainError.notFound("room") }
            let message = try await Self.postSystemMessage(for: next, by: userId, rooms: rooms, at: date, connection, logger)
            return MatchStep(match: next, room: room, message: message, reopenedClass: seats?.reopened ?? false)
        }
    }

    public func match(id: String) async throws -> Match? {
        try await PostgresRows.all(client.query("SELECT * FROM matches WHERE id = \(id)", logger: logger))
            .first.map(Self.match(row:))
    }

    public func matches(of userId: String, role: MatchRole?, page: PageRequest) async throws -> Page<Match> {
        var binds = PostgresRows.Binds()
        let user = binds.bind(userId)
        let source: String = switch role {
        case .seller: "SELECT * FROM matches WHERE seller_id = \(user)"
        case .buyer: "SELECT * FROM matches WHERE buyer_id = \(user)"
        case nil: "SELECT * FROM matches WHERE seller_id = \(user) UNION ALL SELECT * FROM matches WHERE buyer_id = \(user)"
        }
        return try await PostgresRows.newestFirstPage(client, logger: logger, from: source, binds: binds, page: page,
                                                      ordering: "matches", decode: Self.match(row:))
    }

    public func review(matchId: String, by userId: String, grade: Double, description: String, at date: Date) async throws -> Review {
        try await PostgresRows.transaction(client, logger: logger) { [logger] connection in
            guard let row = try await PostgresRows.all(connection.query(
                "SELECT * FROM matches WHERE id = \(matchId)", logger: logger)).first
            else { throw DomainError.notFound("match") }
            let match = try Self.match(row: row)
            let reviewee = try match.reviewee(of: userId)
            let review = Review(id: Identifier.make(at: date), matchId: matchId, reviewerId: userId, revieweeId: reviewee,
                                grade: grade, description: description, createdAt: date)
            // A review sent twice at once waits here for the first, then inserts nothing.
            let inserted = try await PostgresRows.all(connection.query("""
                INSERT INTO reviews (id, match_id, reviewer_id, reviewee_id, grade, description, created_at)
                VALUES (\(review.id), \(matchId), \(userId), \(reviewee), \(grade), \(description), \(date.millisecondsSince1970))
                ON CONFLICT (match_id, reviewer_id) DO NOTHING
                RETURNING id
                """, logger: logger))
            guard !inserted.isEmpty else { throw DomainError.conflict("you have already reviewed this match") }
            try await connection.query(
                "UPDATE users SET rating_sum = rating_sum + \(grade), rating_count = rating_count + 1 WHERE id = \(reviewee)",
                logger: logger)
            return review
        }
    }

    public func reviews(of userId: String, page: PageRequest) async throws -> Page<Review> {
        var binds = PostgresRows.Binds()
        let user = binds.bind(userId)
        return try await PostgresRows.newestFirstPage(client, logger: logger, from: "SELECT * FROM reviews WHERE reviewee_id = \(user)",
                                                      binds: binds, page: page, ordering: "reviews") { row in
            Review(id: try row["id"].decode(String.self), matchId: try row["match_id"].decode(String.self),
                   reviewerId: try row["reviewer_id"].decode(String.self), revieweeId: try row["reviewee_id"].decode(String.self),
                   grade: try row["grade"].decode(Double.self), description: try row["description"].decode(String.self),
                   createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)))
        }
    }

    /// The listing of a match with its seat count.
    private struct SeatedListing {
        let listing: ClassListing
        let seatsTaken: Int
        var status: ClassStatus { listing.status }
        var capacity: Int { listing.capacity }
    }

    /// The class `classId` unless deleted (else ``DomainError/notFound(_:)``); with `locking`, its row stays locked
    /// until the transaction ends, so that its seats read here are still true when updated.
    private static func listing(
        _ classId: String, locking: Bool, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> SeatedListing {
        guard let row = try await PostgresRows.all(connection.query("""
            SELECT c.*, ARRAY(SELECT ci.image_id FROM class_images ci WHERE ci.class_id = c.id ORDER BY ci.position) AS image_ids
            FROM classes c JOIN users u ON u.id = c.writer_id
            WHERE c.id = \(classId) AND c.deleted_at IS NULL
            \(unescaped: locking ? "FOR NO KEY UPDATE OF c" : "")
            """, logger: logger)).first
        else { throw DomainError.notFound("class") }
        return SeatedListing(listing: try PostgresClassViewQuery.listing(row: row), seatsTaken: try row["seats_taken"].decode(Int.self))
    }

    /// Posts the system message of `match`'s status in its room, whose lock the transaction holds.
    private static func postSystemMessage(
        for match: Match, by userId: String, rooms: [String: ChatRoom], at date: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> ChatMessage {
        let outgoing = OutgoingMessage(roomId: match.roomId, senderId: userId, clientId: nil, kind: .system,
                                       text: Match.systemMessage(for: match.status), imageId: nil)
        return try await PostgresChatRepository.append([outgoing], rooms: rooms, at: date, connection, logger)[0].get().message
    }

    /// Decodes a `matches` row.
    private static func match(row: PostgresRandomAccessRow) throws -> Match {
        let days = try row["days"].decode(String?.self)
        let priceUnit = try row["price_unit"].decode(String?.self)
        return Match(
            id: try row["id"].decode(String.self), roomId: try row["room_id"].decode(String.self),
            classId: try row["class_id"].decode(String.self), sellerId: try row["seller_id"].decode(String.self),
            buyerId: try row["buyer_id"].decode(String.self),
            status: MatchStatus(rawValue: try row["status"].decode(String.self)) ?? .cancelled,
            proposedBy: try row["proposed_by"].decode(String.self),
            terms: MatchTerms(days: days.map { StoredList.decode($0) }, time: try row["time"].decode(String?.self),
                              place: try row["place"].decode(String?.self), location: try PostgresRows.location(row),
                              price: try row["price"].decode(Int?.self), priceUnit: priceUnit.flatMap(PriceUnit.init(rawValue:))),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row["updated_at"].decode(Int64.self)))
    }
}
