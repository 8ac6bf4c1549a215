import ClassTodayCore
import Foundation

/// Bearer-token sessions, on either backend.
public struct SQLSessionRepository: SessionRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func create(_ session: Session) async throws {
        try await database.execute("""
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
            VALUES (\(session.tokenHash), \(session.userId), \(session.createdAt.millisecondsSince1970),
                \(session.expiresAt.millisecondsSince1970))
            """)
    }

    public func owner(tokenHash: String, now: Date) async throws -> SessionOwner? {
        try await database.row("""
            SELECT s.user_id, s.created_at, u.is_operator, u.suspended_at, u.suspended_until
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(now.millisecondsSince1970)
            """).map { row in
            SessionOwner(userId: try row["user_id"], isOperator: try row["is_operator"],
                         suspension: Suspension.active(since: try row.optionalDate("suspended_at"), until: try row.optionalDate("suspended_until"), at: now),
                         signedInAt: try row.date("created_at"))
        }
    }

    public func revoke(tokenHash: String) async throws {
        try await database.execute("DELETE FROM sessions WHERE token_hash = \(tokenHash)")
    }

    @discardableResult
    public func deleteExpired(before date: Date) async throws -> Int {
        try await database.execute("DELETE FROM sessions WHERE expires_at <= \(date.millisecondsSince1970)")
    }
}
