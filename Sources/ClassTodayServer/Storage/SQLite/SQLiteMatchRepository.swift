import ClassTodayCore
import Foundation
import GRDB

/// Matches and reviews stored in the embedded SQLite database. Every step is one write transaction that also
/// updates the class's seats and status and posts the step's system message in the room, so that two members
/// accepting the last seat at the same moment cannot both succeed.
public struct SQLiteMatchRepository: MatchRepository {
    private let writer: DatabasePool

    /// Creates the repository over an open store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    public func propose(roomId: String, by userId: String, terms: MatchTerms, at date: Date) async throws -> MatchStep {
        try await writer.write { db in
            guard let roomRow = try Row.fetchOne(db, sql: "SELECT * FROM chat_rooms WHERE id = ?", arguments: [roomId]) else {
                throw DomainError.notFound("room")
            }
            let room = SQLiteChatRepository.room(row: roomRow)
            try Match.checkProposer(userId, sellerId: room.sellerId, buyerId: room.buyerId)
            let listing = try Self.listing(room.classId, db)
            try Match.checkCanPropose(listingStatus: listing.status)
            let match = try Match.propose(id: Identifier.make(at: date), roomId: room.id, classId: room.classId, sellerId: room.sellerId,
                                          buyerId: room.buyerId, by: userId, terms: terms.defaulted(from: listing.listing), at: date)
            try db.execute(sql: """
                INSERT INTO matches (id, room_id, class_id, seller_id, buyer_id, status, proposed_by, days, time, place, lat, lon,
                    price, price_unit, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [match.id, match.roomId, match.classId, match.sellerId, match.buyerId, match.status.rawValue,
                                 match.proposedBy, match.terms.days.map(StoredList.encode), match.terms.time, match.terms.place,
                                 match.terms.location?.lat, match.terms.location?.lon, match.terms.price,
                                 match.terms.priceUnit?.rawValue, date.millisecondsSince1970, date.millisecondsSince1970])
            let message = try Self.postSystemMessage(for: match, by: userId, at: date, db)
            return MatchStep(match: match, room: room, message: message, reopenedClass: false)
        }
    }

    public func apply(_ action: MatchAction, matchId: String, by userId: String, at date: Date) async throws -> MatchStep {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM matches WHERE id = ?", arguments: [matchId]) else {
                throw DomainError.notFound("match")
            }
            let current = Self.match(row: row)
            let next = try current.applying(action, by: userId, at: date)
            let listing = try Self.listing(current.classId, db)
            let seats = try Match.seatUpdate(from: current.status, to: next.status, listingStatus: listing.status,
                                             seatsTaken: listing.seatsTaken, capacity: listing.capacity)
            if let seats {
                try db.execute(sql: "UPDATE classes SET seats_taken = ?, status = ?, updated_at = ? WHERE id = ?",
                               arguments: [seats.seatsTaken, seats.status.rawValue, date.millisecondsSince1970, current.classId])
                if seats.reopened {
                    try db.execute(AlertOutbox.enqueue(classId: current.classId, at: date))
                }
            }
            try db.execute(sql: "UPDATE matches SET status = ?, updated_at = ? WHERE id = ?",
                           arguments: [next.status.rawValue, date.millisecondsSince1970, matchId])
            guard let roomRow = try Row.fetchOne(db, sql: "SELECT * FROM chat_rooms WHERE id = ?", arguments: [current.roomId]) else {
                throw DomainError.notFound("room")
            }
            let message = try Self.postSystemMessage(for: next, by: userId, at: date, db)
            return MatchStep(match: next, room: SQLiteChatRepository.room(row: roomRow), message: message, reopenedClass: seats?.reopened ?? false)
        }
    }

    public func match(id: String) async throws -> Match? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM matches WHERE id = ?", arguments: [id]).map(Self.match(row:))
        }
    }

    public func matches(of userId: String, role: MatchRole?, page: PageRequest) async throws -> Page<Match> {
        try await writer.read { db in
            let source: String = switch role {
            case .seller: "SELECT * FROM matches WHERE seller_id = :user"
            case .buyer: "SELECT * FROM matches WHERE buyer_id = :user"
            case nil: "SELECT * FROM matches WHERE seller_id = :user UNION ALL SELECT * FROM matches WHERE buyer_id = :user"
            }
            return try NewestFirstPage.fetch(db, from: source, arguments: ["user": userId], page: page, ordering: "matches",
                                             decode: Self.match(row:))
        }
    }

    public func review(matchId: String, by userId: String, grade: Double, description: String, at date: Date) async throws -> Review {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM matches WHERE id = ?", arguments: [matchId]) else {
                throw DomainError.notFound("match")
            }
            let match = Self.match(row: row)
            let reviewee = try match.reviewee(of: userId)
            let review = Review(id: Identifier.make(at: date), matchId: matchId, reviewerId: userId, revieweeId: reviewee,
                                grade: grade, description: description, createdAt: date)
            do {
                try db.execute(sql: """
                    INSERT INTO reviews (id, match_id, reviewer_id, reviewee_id, grade, description, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [review.id, matchId, userId, reviewee, grade, description, date.millisecondsSince1970])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw DomainError.conflict("you have already reviewed this match")
            }
            try db.execute(sql: "UPDATE users SET rating_sum = rating_sum + ?, rating_count = rating_count + 1 WHERE id = ?",
                           arguments: [grade, reviewee])
            return review
        }
    }

    public func reviews(of userId: String, page: PageRequest) async throws -> Page<Review> {
        try await writer.read { db in
            try NewestFirstPage.fetch(db, from: "SELECT * FROM reviews WHERE reviewee_id = :user", arguments: ["user": userId],
                                      page: page, ordering: "reviews") { row in
                Review(id: row["id"], matchId: row["match_id"], reviewerId: row["reviewer_id"], revieweeId: row["reviewee_id"],
                       grade: row["grade"], description: row["description"], createdAt: Date(millisecondsSince1970: row["created_at"]))
            }
        }
    }

    /// The listing of a match with its seat count.
    private struct SeatedListing {
        let listing: ClassListing
        let seatsTaken: Int
        var status: ClassStatus { listing.status }
        var capacity: Int { listing.capacity }
    }

    private static func listing(_ classId: String, _ db: Database) throws -> SeatedListing {
        guard let row = try SQLiteClassViewQuery.fetchRows(db, viewerId: nil, where: "c.id = :id", orderBy: "c.id", limit: 1,
                                                     arguments: ["id": classId]).first
        else { throw DomainError.notFound("class") }
        return SeatedListing(listing: SQLiteClassViewQuery.view(row: row).listing, seatsTaken: row["seats_taken"])
    }

    private static func postSystemMessage(for match: Match, by userId: String, at date: Date, _ db: Database) throws -> ChatMessage {
        let outgoing = OutgoingMessage(roomId: match.roomId, senderId: userId, clientId: nil, kind: .system,
                                       text: Match.systemMessage(for: match.status), imageId: nil)
        return try SQLiteChatRepository.append([outgoing], at: date, db)[0].get().message
    }

    static func match(row: Row) -> Match {
        let lat: Double? = row["lat"]
        let lon: Double? = row["lon"]
        let days: String? = row["days"]
        let priceUnit: String? = row["price_unit"]
        return Match(
            id: row["id"], roomId: row["room_id"], classId: row["class_id"], sellerId: row["seller_id"], buyerId: row["buyer_id"],
            status: MatchStatus(rawValue: row["status"]) ?? .cancelled, proposedBy: row["proposed_by"],
            terms: MatchTerms(days: days.map { StoredList.decode($0) }, time: row["time"], place: row["place"],
                              location: lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } },
                              price: row["price"], priceUnit: priceUnit.flatMap(PriceUnit.init(rawValue:))),
            createdAt: Date(millisecondsSince1970: row["created_at"]), updatedAt: Date(millisecondsSince1970: row["updated_at"]))
    }
}
