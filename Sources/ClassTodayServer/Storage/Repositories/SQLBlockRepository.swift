import ClassTodayCore
import Foundation

/// Blocks, on either backend. Other repositories read blocks through ``BlockSQL``, in their own statements.
public struct SQLBlockRepository: BlockRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func block(_ blockedId: String, by blockerId: String, at date: Date) async throws -> [MatchStep] {
        guard Identifier.isWellFormed(blockedId) else { throw DomainError.notFound("user") }
        try BlockRules.checkBlock(blockedId, by: blockerId)
        return try await database.transaction { db in
            guard try await db.row("SELECT id FROM users WHERE id = \(blockedId) AND deleted_at IS NULL") != nil else {
                throw DomainError.notFound("user")
            }
            try await db.execute("""
                INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (\(blockerId), \(blockedId), \(date.millisecondsSince1970))
                ON CONFLICT DO NOTHING
                """)
            return try await Self.declinePending(between: blockerId, and: blockedId, at: date, db)
        }
    }

    /// Declines the proposals pending between the two users, each with its system message in its room, inside the
    /// caller's transaction (a proposal fills no seat, so no class changes).
    private static func declinePending(between blockerId: String, and blockedId: String, at date: Date, _ db: any SQLExecutor) async throws -> [MatchStep] {
        let pending = try await db.rows("""
            SELECT * FROM matches WHERE status = \(MatchStatus.proposed.rawValue)
              AND ((seller_id = \(blockerId) AND buyer_id = \(blockedId)) OR (seller_id = \(blockedId) AND buyer_id = \(blockerId)))
            ORDER BY id \(raw: db.dialect.lockForNoKeyUpdate)
            """).map(Match.init(row:))
        let declined = pending.compactMap { $0.declinedByBlock(at: date) }
        guard !declined.isEmpty else { return [] }
        for match in declined {
            try await db.execute("UPDATE matches SET status = \(match.status.rawValue), updated_at = \(date.millisecondsSince1970) WHERE id = \(match.id)")
        }
        // One batch, so that several proposals in one room take consecutive seqs.
        let rooms = try await ChatLog.lockRooms(declined.map(\.roomId), db)
        let notices = declined.map { match in
            OutgoingMessage(roomId: match.roomId, senderId: blockerId, clientId: nil, kind: .system,
                            text: Match.systemMessage(for: match.status), imageId: nil)
        }
        let appended = try await ChatLog.append(notices, rooms: rooms, at: date, db)
        return try zip(declined, appended).compactMap { match, result in
            let message = try result.get().message
            return rooms[match.roomId].map { MatchStep(match: match, room: $0, message: message, reopenedClass: false) }
        }
    }

    public func unblock(_ blockedId: String, by blockerId: String) async throws {
        guard Identifier.isWellFormed(blockedId) else { throw DomainError.notFound("user") }
        try await database.execute("DELETE FROM blocks WHERE blocker_id = \(blockerId) AND blocked_id = \(blockedId)")
    }

    public func blocks(of userId: String, page: PageRequest) async throws -> Page<BlockedUser> {
        let source: SQLStatement = """
            SELECT b.blocked_id AS id, b.created_at, u.nickname, u.profile_image_id, u.rating_sum, u.rating_count
            FROM blocks b JOIN users u ON u.id = b.blocked_id WHERE b.blocker_id = \(userId)
            """
        return try await SQLPage.newestFirst(database, from: source, page: page, ordering: "blocks") { row in
            BlockedUser(user: WriterSummary(id: try row["id"], nickname: try row["nickname"], profileImageId: try row["profile_image_id"],
                                            rating: try row.rating(sum: "rating_sum", count: "rating_count")),
                        blockedAt: try row.date("created_at"))
        }
    }
}

/// Block conditions for other repositories' statements: a block works in both directions.
enum BlockSQL {
    /// True when either of the two users (bound values or column expressions) blocked the other.
    static func between(_ first: SQLStatement, _ second: SQLStatement) -> SQLStatement {
        """
        EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = \(first) AND blocked_id = \(second)) \
        OR (blocker_id = \(second) AND blocked_id = \(first)))
        """
    }

    /// Throws ``BlockRules/blocked`` when either of the two users blocked the other, and
    /// ``AccountDeletion/counterpartDeleted`` when either deleted their account.
    static func check(_ userId: String, _ otherId: String, _ db: any SQLExecutor) async throws {
        if try await db.row("SELECT 1 AS blocked WHERE \(between("\(userId)", "\(otherId)"))") != nil { throw BlockRules.blocked }
        if try await db.row("SELECT 1 AS deleted FROM users WHERE id IN (\(userId), \(otherId)) AND deleted_at IS NOT NULL") != nil {
            throw AccountDeletion.counterpartDeleted
        }
    }

    /// The users `userId` blocked or was blocked by (one indexed read each way).
    static func counterparts(of userId: String, _ db: any SQLExecutor) async throws -> [String] {
        try await db.rows("""
            SELECT blocked_id AS id FROM blocks WHERE blocker_id = \(userId)
            UNION SELECT blocker_id AS id FROM blocks WHERE blocked_id = \(userId)
            """).map { try $0["id"] }
    }
}
