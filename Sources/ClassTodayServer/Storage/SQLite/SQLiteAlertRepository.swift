import ClassTodayCore
import Foundation
import GRDB

/// Alerts, their cell index and notifications stored in the embedded SQLite database.
public struct SQLiteAlertRepository: AlertRepository {
    private let writer: DatabasePool

    /// Creates the repository over an open store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    public func create(_ alert: Alert) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                INSERT INTO alerts (id, user_id, lat, lon, radius, query, type, subjects, targets, days, max_price, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [alert.id, alert.userId, alert.center.lat, alert.center.lon, alert.radius, alert.query,
                                 alert.type?.rawValue, alert.subjects.map(StoredList.encode), alert.targets.map(StoredList.encode),
                                 alert.days.map(StoredList.encode), alert.maxPrice, alert.createdAt.millisecondsSince1970])
            let insert = try db.cachedStatement(sql: "INSERT INTO alert_cells (cell, alert_id) VALUES (?, ?)")
            for cell in AlertCells.cells(for: alert) {
                try insert.execute(arguments: [cell, alert.id])
            }
        }
    }

    public func alerts(of userId: String, page: PageRequest) async throws -> Page<Alert> {
        try await writer.read { db in
            var arguments: [String: (any DatabaseValueConvertible)?] = ["user": userId, "limit": page.limit + 1]
            var condition = ""
            if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
                condition = "AND (created_at < :createdAt OR (created_at = :createdAt AND id < :id))"
                arguments["createdAt"] = createdAt
                arguments["id"] = id
            }
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM alerts WHERE user_id = :user \(condition) ORDER BY created_at DESC, id DESC LIMIT :limit",
                                        arguments: StatementArguments(arguments))
            let alerts = rows.prefix(page.limit).map(Self.alert(row:))
            let next = rows.count > page.limit ? alerts.last.map {
                PageCursor(ordering: "alerts", values: [.int($0.createdAt.millisecondsSince1970), .string($0.id)]).encoded
            } : nil
            return Page(items: alerts, nextCursor: next)
        }
    }

    public func delete(id: String, by userId: String) async throws {
        try await writer.write { db in
            guard let owner = try String.fetchOne(db, sql: "SELECT user_id FROM alerts WHERE id = ?", arguments: [id]) else {
                throw DomainError.notFound("alert")
            }
            guard owner == userId else { throw DomainError.forbidden("only the alert's owner may delete it") }
            try db.execute(sql: "DELETE FROM alerts WHERE id = ?", arguments: [id])
        }
    }

    public func notify(about listing: ClassListing, at date: Date) async throws -> [AlertNotification] {
        guard listing.location != nil, listing.status == .open else { return [] }
        return try await writer.write { db in try Self.notify(about: listing, at: date, db) }
    }

    /// Records the notifications of `listing` inside the caller's transaction (class creation, reopening).
    static func notify(about listing: ClassListing, at date: Date, _ db: Database) throws -> [AlertNotification] {
        guard let location = listing.location, listing.status == .open else { return [] }
        let candidates = try Row.fetchAll(db, sql: """
            SELECT a.* FROM alerts a
            WHERE a.id IN (SELECT alert_id FROM alert_cells WHERE cell IN (SELECT value FROM json_each(?)))
              AND a.user_id != ?
            """, arguments: [StoredList.encodeStrings(AlertCells.lookupKeys(for: location)), listing.writerId]).map(alert(row:))
        var created: [AlertNotification] = []
        let insert = try db.cachedStatement(sql: """
            INSERT INTO notifications (id, user_id, kind, alert_id, class_id, created_at) VALUES (?, ?, 'alert', ?, ?, ?)
            """)
        for alert in candidates where alert.matches(listing) {
            let notification = AlertNotification(id: Identifier.make(at: date), userId: alert.userId, alertId: alert.id,
                                                 classId: listing.id, createdAt: date, read: false)
            try insert.execute(arguments: [notification.id, notification.userId, alert.id, listing.id, date.millisecondsSince1970])
            created.append(notification)
        }
        return created
    }

    public func notifications(of userId: String, page: PageRequest) async throws -> Page<AlertNotification> {
        try await writer.read { db in
            var arguments: [String: (any DatabaseValueConvertible)?] = ["user": userId, "limit": page.limit + 1]
            var condition = ""
            if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
                condition = "AND (created_at < :createdAt OR (created_at = :createdAt AND id < :id))"
                arguments["createdAt"] = createdAt
                arguments["id"] = id
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM notifications WHERE user_id = :user \(condition) ORDER BY created_at DESC, id DESC LIMIT :limit
                """, arguments: StatementArguments(arguments))
            let items = rows.prefix(page.limit).map { row in
                AlertNotification(id: row["id"], userId: row["user_id"], alertId: row["alert_id"] ?? "", classId: row["class_id"] ?? "",
                                  createdAt: Date(millisecondsSince1970: row["created_at"]), read: row["read"])
            }
            let next = rows.count > page.limit ? items.last.map {
                PageCursor(ordering: "notifications", values: [.int($0.createdAt.millisecondsSince1970), .string($0.id)]).encoded
            } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    @discardableResult
    public func markRead(ids: [String], userId: String) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "UPDATE notifications SET read = 1 WHERE user_id = ? AND read = 0 AND id IN (SELECT value FROM json_each(?))",
                           arguments: [userId, StoredList.encodeStrings(ids)])
            return db.changesCount
        }
    }

    private static func alert(row: Row) -> Alert {
        let type: String? = row["type"]
        let subjects: String? = row["subjects"]
        let targets: String? = row["targets"]
        let days: String? = row["days"]
        return Alert(
            id: row["id"], userId: row["user_id"], center: GeoPoint(lat: row["lat"], lon: row["lon"]), radius: row["radius"],
            query: row["query"], type: type.flatMap(ClassType.init(rawValue:)), subjects: subjects.map { StoredList.decode($0) },
            targets: targets.map { StoredList.decode($0) }, days: days.map { StoredList.decode($0) }, maxPrice: row["max_price"],
            createdAt: Date(millisecondsSince1970: row["created_at"]))
    }
}
