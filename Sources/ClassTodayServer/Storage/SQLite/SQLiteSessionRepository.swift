import ClassTodayCore
import Foundation
import GRDB

/// Bearer-token sessions stored in the embedded SQLite database.
public struct SQLiteSessionRepository: SessionRepository {
    private let writer: DatabasePool

    /// Creates the repository over an open store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    public func create(_ session: Session) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [session.tokenHash, session.userId, session.createdAt.millisecondsSince1970,
                            session.expiresAt.millisecondsSince1970])
        }
    }

    public func userId(tokenHash: String, now: Date) async throws -> String? {
        try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT user_id FROM sessions WHERE token_hash = ? AND expires_at > ?",
                                arguments: [tokenHash, now.millisecondsSince1970])
        }
    }

    public func revoke(tokenHash: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    @discardableResult
    public func deleteExpired(before date: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE expires_at <= ?", arguments: [date.millisecondsSince1970])
            return db.changesCount
        }
    }
}
