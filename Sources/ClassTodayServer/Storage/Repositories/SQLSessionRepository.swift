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

    public func userId(tokenHash: String, now: Date) async throws -> String? {
        try await database.row(
            "SELECT user_id FROM sessions WHERE token_hash = \(tokenHash) AND expires_at > \(now.millisecondsSince1970)"
        ).map { try $0["user_id"] }
    }

    public func revoke(tokenHash: String) async throws {
        try await database.execute("DELETE FROM sessions WHERE token_hash = \(tokenHash)")
    }

    @discardableResult
    public func deleteExpired(before date: Date) async throws -> Int {
        try await database.execute("DELETE FROM sessions WHERE expires_at <= \(date.millisecondsSince1970)")
    }
}
