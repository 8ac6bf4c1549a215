import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Bearer-token sessions stored in PostgreSQL; the port of ``SQLiteSessionRepository``.
public struct PostgresSessionRepository: SessionRepository {
    private let client: PostgresClient
    private let logger = Logger(label: "classtoday.postgres.sessions")

    /// Creates the repository over an open store.
    public init(store: PostgresStore) {
        self.client = store.client
    }

    public func create(_ session: Session) async throws {
        try await client.query("""
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
            VALUES (\(session.tokenHash), \(session.userId), \(session.createdAt.millisecondsSince1970),
                \(session.expiresAt.millisecondsSince1970))
            """, logger: logger)
    }

    public func userId(tokenHash: String, now: Date) async throws -> String? {
        try await PostgresRows.all(client.query(
            "SELECT user_id FROM sessions WHERE token_hash = \(tokenHash) AND expires_at > \(now.millisecondsSince1970)",
            logger: logger)
        ).first.map { try $0["user_id"].decode(String.self) }
    }

    public func revoke(tokenHash: String) async throws {
        try await client.query("DELETE FROM sessions WHERE token_hash = \(tokenHash)", logger: logger)
    }

    @discardableResult
    public func deleteExpired(before date: Date) async throws -> Int {
        let rows = try await PostgresRows.all(client.query("""
            WITH deleted AS (DELETE FROM sessions WHERE expires_at <= \(date.millisecondsSince1970) RETURNING 1)
            SELECT count(*) AS count FROM deleted
            """, logger: logger))
        return try rows.first?["count"].decode(Int.self) ?? 0
    }
}
