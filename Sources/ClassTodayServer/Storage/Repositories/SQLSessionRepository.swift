import ClassTodayCore
import Foundation

/// Bearer-token sessions and their refresh-token families, on either backend.
public struct SQLSessionRepository: SessionRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func start(_ grant: SessionGrant, userId: String) async throws {
        try await database.transaction { db in
            try await Self.record(grant, userId: userId, family: grant.refreshTokenHash, signedInAt: grant.issuedAt, db)
        }
    }

    public func refresh(tokenHash: String, with grant: SessionGrant) async throws -> RefreshOutcome {
        try await database.transaction { db in
            guard let row = try await db.row("""
                SELECT family_id, user_id, used_at, signed_in_at FROM refresh_tokens
                WHERE token_hash = \(tokenHash) AND expires_at > \(grant.issuedAt.millisecondsSince1970)
                \(raw: db.dialect.lockForUpdate)
                """)
            else { return .invalid }
            let family: String = try row["family_id"]
            guard try row.optionalDate("used_at") == nil else {
                try await Self.removeDevices(ofSession: family, db)
                try await db.execute("DELETE FROM sessions WHERE family_id = \(family)")
                try await db.execute("DELETE FROM refresh_tokens WHERE family_id = \(family)")
                return .reused(userId: try row["user_id"], sessionId: family)
            }
            let userId: String = try row["user_id"]
            try await db.execute("""
                UPDATE refresh_tokens SET used_at = \(grant.issuedAt.millisecondsSince1970) WHERE token_hash = \(tokenHash)
                """)
            try await Self.record(grant, userId: userId, family: family, signedInAt: try row.date("signed_in_at"), db)
            return .rotated(userId: userId)
        }
    }

    /// Inserts the bearer token and the refresh token of `grant` into `family`, whose sign-in was at `signedInAt`.
    private static func record(_ grant: SessionGrant, userId: String, family: String, signedInAt: Date, _ db: any SQLExecutor) async throws {
        let (issued, signedIn) = (grant.issuedAt.millisecondsSince1970, signedInAt.millisecondsSince1970)
        try await db.execute("""
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at, family_id, signed_in_at)
            VALUES (\(grant.accessTokenHash), \(userId), \(issued), \(grant.accessExpiresAt.millisecondsSince1970), \(family), \(signedIn))
            """)
        try await db.execute("""
            INSERT INTO refresh_tokens (token_hash, family_id, user_id, created_at, expires_at, signed_in_at)
            VALUES (\(grant.refreshTokenHash), \(family), \(userId), \(issued), \(grant.refreshExpiresAt.millisecondsSince1970), \(signedIn))
            """)
    }

    public func owner(tokenHash: String, now: Date) async throws -> SessionOwner? {
        try await database.row("""
            SELECT s.user_id, COALESCE(s.signed_in_at, s.created_at) AS signed_in_at, COALESCE(s.family_id, s.token_hash) AS session_id,
                u.is_operator, u.suspended_at, u.suspended_until, u.email_verified_at
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(now.millisecondsSince1970)
            """).map { row in
            SessionOwner(userId: try row["user_id"], isOperator: try row["is_operator"],
                         suspension: Suspension.active(since: try row.optionalDate("suspended_at"), until: try row.optionalDate("suspended_until"), at: now),
                         signedInAt: try row.date("signed_in_at"), sessionId: try row["session_id"],
                         emailVerified: try row.optionalDate("email_verified_at") != nil)
        }
    }

    public func revoke(tokenHash: String) async throws {
        try await database.transaction { db in
            let family = try await db.row("SELECT family_id FROM sessions WHERE token_hash = \(tokenHash)").flatMap { try $0["family_id"] as String? }
            if let family {
                // Every bearer token of the sign-in goes, the ones refreshing replaced too, with its refresh tokens.
                try await db.execute("DELETE FROM refresh_tokens WHERE family_id = \(family)")
                try await db.execute("DELETE FROM sessions WHERE family_id = \(family)")
            }
            // Signing out of a session removes the push devices it registered.
            try await Self.removeDevices(ofSession: family ?? tokenHash, db)
            try await db.execute("DELETE FROM sessions WHERE token_hash = \(tokenHash)")
        }
    }

    /// Deletes the push devices registered by the session `sessionId` (a family id, or a bearer token hash for a
    /// session without a family), with their pending deliveries.
    private static func removeDevices(ofSession sessionId: String, _ db: any SQLExecutor) async throws {
        try await db.execute("""
            DELETE FROM push_deliveries WHERE device_token IN (SELECT token FROM devices WHERE session_id = \(sessionId))
            """)
        try await db.execute("DELETE FROM devices WHERE session_id = \(sessionId)")
    }

    /// Ends every sign-in of `userId` but `keeping` in the caller's transaction: its bearer and refresh tokens and the
    /// push devices it registered (with their pending deliveries). Returns the ended sign-ins' ids (``SessionOwner/sessionId``).
    static func endSessions(ofUser userId: String, keeping: String?, _ db: any SQLExecutor) async throws -> [String] {
        let ended: [String] = try await db.rows("""
            SELECT COALESCE(family_id, token_hash) AS session_id FROM sessions WHERE user_id = \(userId)
            UNION SELECT family_id AS session_id FROM refresh_tokens WHERE user_id = \(userId)
            """).map { try $0["session_id"] as String }.filter { $0 != keeping }.sorted()
        guard !ended.isEmpty else { return [] }
        let sessions = db.dialect.list(ended)
        try await db.execute("""
            DELETE FROM push_deliveries WHERE device_token IN (SELECT token FROM devices WHERE session_id IN \(sessions))
            """)
        try await db.execute("DELETE FROM devices WHERE session_id IN \(sessions)")
        try await db.execute("DELETE FROM sessions WHERE user_id = \(userId) AND COALESCE(family_id, token_hash) IN \(sessions)")
        try await db.execute("DELETE FROM refresh_tokens WHERE user_id = \(userId) AND family_id IN \(sessions)")
        return ended
    }

    @discardableResult
    public func deleteExpired(before date: Date) async throws -> Int {
        let cutoff = date.millisecondsSince1970
        let removed = try await database.execute("DELETE FROM sessions WHERE expires_at <= \(cutoff)")
            + database.execute("DELETE FROM refresh_tokens WHERE expires_at <= \(cutoff)")
        // A device whose session has run out entirely (no bearer and no refresh token left) belongs to an app that is
        // signed out: it gets no more pushes.
        try await database.execute("""
            DELETE FROM devices WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.family_id = devices.session_id OR s.token_hash = devices.session_id)
              AND NOT EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = devices.session_id)
            """)
        return removed
    }
}
