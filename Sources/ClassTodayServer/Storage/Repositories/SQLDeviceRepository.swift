import ClassTodayCore
import Foundation

/// Push devices and per-room mutes, on either backend.
public struct SQLDeviceRepository: DeviceRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func register(_ registration: DeviceRegistration, userId: String, sessionTokenHash: String, at date: Date) async throws -> Bool {
        try await database.transaction { db in
            // The device belongs to the session's family, which refreshing keeps: signing out of it removes the device.
            let session = try await db.row("SELECT family_id FROM sessions WHERE token_hash = \(sessionTokenHash)")
            let sessionId: String = try session.flatMap { try $0["family_id"] as String? } ?? sessionTokenHash
            let previousOwner: String? = try await db.row("""
                SELECT user_id FROM devices WHERE token = \(registration.token) \(raw: db.dialect.lockForUpdate)
                """).map { try $0["user_id"] }
            let now = date.millisecondsSince1970
            try await db.execute("""
                INSERT INTO devices (token, user_id, platform, app_version, locale, session_id, created_at, updated_at)
                VALUES (\(registration.token), \(userId), \(registration.platform.rawValue), \(registration.appVersion), \(registration.locale),
                        \(sessionId), \(now), \(now))
                ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
                    app_version = excluded.app_version, locale = excluded.locale, session_id = excluded.session_id,
                    updated_at = excluded.updated_at,
                    created_at = CASE WHEN devices.user_id = excluded.user_id THEN devices.created_at ELSE excluded.created_at END
                """)
            if let previousOwner, previousOwner != userId {
                // A token that moved to another account takes none of the previous owner's pushes with it.
                try await db.execute("DELETE FROM push_deliveries WHERE device_token = \(registration.token) AND user_id <> \(userId)")
            }
            try await db.execute("""
                DELETE FROM devices WHERE user_id = \(userId) AND token IN (
                    SELECT token FROM devices WHERE user_id = \(userId) ORDER BY updated_at DESC, token LIMIT 1000 OFFSET \(DeviceRules.maximumPerUser))
                """)
            return previousOwner != userId
        }
    }

    public func remove(token: String, userId: String) async throws {
        guard try await database.execute("DELETE FROM devices WHERE token = \(token) AND user_id = \(userId)") > 0 else {
            throw DomainError.notFound("device")
        }
    }

    public func devices(of userId: String) async throws -> [Device] {
        try await database.rows("SELECT * FROM devices WHERE user_id = \(userId) ORDER BY updated_at DESC, token").map { row in
            Device(token: try row["token"], userId: try row["user_id"],
                   platform: DevicePlatform(rawValue: try row["platform"]) ?? .ios, appVersion: try row["app_version"],
                   locale: try row["locale"], createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
        }
    }

    public func setMuted(_ muted: Bool, roomId: String, userId: String, at date: Date) async throws {
        guard Identifier.isWellFormed(roomId) else { throw DomainError.notFound("room") }
        try await database.transaction { db in
            guard try await db.row("""
                SELECT id FROM chat_rooms WHERE id = \(roomId) AND (seller_id = \(userId) OR buyer_id = \(userId))
                """) != nil else { throw DomainError.notFound("room") }
            if muted {
                try await db.execute("""
                    INSERT INTO chat_room_mutes (room_id, user_id, created_at) VALUES (\(roomId), \(userId), \(date.millisecondsSince1970))
                    ON CONFLICT DO NOTHING
                    """)
            } else {
                try await db.execute("DELETE FROM chat_room_mutes WHERE room_id = \(roomId) AND user_id = \(userId)")
            }
        }
    }

    public func mutedRooms(of userId: String, among roomIds: [String]) async throws -> Set<String> {
        guard !roomIds.isEmpty else { return [] }
        var statement: SQLStatement = """
            SELECT room_id FROM chat_room_mutes WHERE user_id = \(userId) AND room_id IN \(database.dialect.list(roomIds))
            """
        statement.isCached = true
        return Set(try await database.rows(statement).map { try $0["room_id"] })
    }
}
