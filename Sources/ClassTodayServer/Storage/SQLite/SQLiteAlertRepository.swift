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
                INSERT INTO alerts (id, user_id, lat, lon, radius, query, type, subjects, targets, days, subjects_mask, targets_mask,
                    days_mask, max_price, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [alert.id, alert.userId, alert.center.lat, alert.center.lon, alert.radius, alert.query,
                                 alert.type?.rawValue, alert.subjects.map(StoredList.encode), alert.targets.map(StoredList.encode),
                                 alert.days.map(StoredList.encode), BitMask.of(alert.subjects ?? []), BitMask.of(alert.targets ?? []),
                                 BitMask.of(alert.days ?? []), alert.maxPrice, alert.createdAt.millisecondsSince1970])
            // Every cell row repeats what matching reads (see migration 0006), so that matching never reads `alerts`.
            let insert = try db.cachedStatement(sql: """
                INSERT INTO alert_index (cell, alert_id, user_id, lat, lon, radius, query, type, subjects_mask, targets_mask, days_mask,
                    max_price)
                SELECT cell.value, a.id, a.user_id, a.lat, a.lon, a.radius, a.query, a.type, a.subjects_mask, a.targets_mask,
                    a.days_mask, a.max_price
                FROM alerts a, json_each(?) cell WHERE a.id = ?
                """)
            try insert.execute(arguments: [StoredList.encodeStrings(AlertCells.cells(for: alert)), alert.id])
        }
    }

    public func alerts(of userId: String, page: PageRequest) async throws -> Page<Alert> {
        try await writer.read { db in
            try NewestFirstPage.fetch(db, from: "SELECT * FROM alerts WHERE user_id = :user", arguments: ["user": userId],
                                      page: page, ordering: "alerts", decode: Self.alert(row:))
        }
    }

    public func delete(id: String, by userId: String) async throws {
        try await writer.write { db in
            guard let owner = try String.fetchOne(db, sql: "SELECT user_id FROM alerts WHERE id = ?", arguments: [id]) else {
                throw DomainError.notFound("alert")
            }
            try Alert.checkOwner(owner, is: userId)
            try db.execute(sql: "DELETE FROM alerts WHERE id = ?", arguments: [id])
        }
    }

    /// Queues a class for fan-out inside the caller's transaction (its creation or reopening); a class already
    /// queued stays once.
    static func enqueue(classId: String, at date: Date, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO alert_outbox (class_id, queued_at) VALUES (?, ?)")
            .execute(arguments: [classId, date.millisecondsSince1970])
    }

    public func fanOut(limit: Int, at date: Date) async throws -> AlertFanOutBatch {
        try await writer.write { db in
            let queued = try String.fetchAll(db, sql: "SELECT class_id FROM alert_outbox ORDER BY queued_at, class_id LIMIT ?",
                                             arguments: [limit])
            guard !queued.isEmpty else { return AlertFanOutBatch(classCount: 0, notifications: []) }
            let views = try ClassViewQuery.fetchAll(db, viewerId: nil, where: "c.id IN (SELECT value FROM json_each(?))",
                                                    arguments: [StoredList.encodeStrings(queued)])
            var notifications: [AlertNotification] = []
            for view in views {
                notifications += try Self.notify(about: view.listing, at: date, db)
            }
            try db.execute(sql: "DELETE FROM alert_outbox WHERE class_id IN (SELECT value FROM json_each(?))",
                           arguments: [StoredList.encodeStrings(queued)])
            return AlertFanOutBatch(classCount: queued.count, notifications: notifications)
        }
    }

    /// Records the notifications of `listing` inside the caller's transaction (a fan-out batch); none unless it is
    /// open and has a location.
    ///
    /// Candidates come from the cell index (the listing's cell and the coarser cells containing it), whose rows
    /// carry every field matching reads; every condition of ``Alert/matches(_:)`` but the keyword runs in the same
    /// SQL statement, the cheap column tests before the distance. Keywords are tested
    /// here against the listing's text cut once (``KeywordFilter``), not once per alert.
    static func notify(about listing: ClassListing, at date: Date, _ db: Database) throws -> [AlertNotification] {
        guard let location = listing.location, listing.status == .open else { return [] }
        let candidates = try Row.fetchCursor(db, sql: """
            SELECT alert_id, user_id, query FROM alert_index
            WHERE cell IN (SELECT value FROM json_each(:cells))
              AND (type IS NULL OR type = :type)
              AND (subjects_mask = 0 OR (subjects_mask & :subjects) != 0)
              AND (targets_mask = 0 OR (targets_mask & :targets) != 0)
              AND (days_mask = 0 OR (days_mask & :days) != 0)
              AND (max_price IS NULL OR (:price IS NOT NULL AND :price <= max_price))
              AND user_id != :writer
              AND ct_distance(lat, lon, :lat, :lon) <= radius
            """, arguments: [
                "cells": StoredList.encodeStrings(AlertCells.lookupKeys(for: location)), "writer": listing.writerId,
                "lat": location.lat, "lon": location.lon, "type": listing.type.rawValue,
                "subjects": BitMask.of(listing.subjects), "targets": BitMask.of(listing.targets), "days": BitMask.of(listing.days),
                "price": listing.price,
            ])
        var keywords = KeywordFilter(listing: listing)
        var firing: [(alertId: String, userId: String)] = []
        while let row = try candidates.next() {
            if keywords.accepts(row["query"]) { firing.append((row["alert_id"], row["user_id"])) }
        }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO notifications (id, user_id, kind, alert_id, class_id, created_at) VALUES (?, ?, 'alert', ?, ?, ?)
            """)
        return try firing.map { alert in
            let notification = AlertNotification(id: Identifier.make(at: date), userId: alert.userId, alertId: alert.alertId,
                                                 classId: listing.id, createdAt: date, read: false)
            try insert.execute(arguments: [notification.id, notification.userId, notification.alertId, listing.id, date.millisecondsSince1970])
            return notification
        }
    }

    public func notifications(of userId: String, page: PageRequest) async throws -> Page<AlertNotification> {
        try await writer.read { db in
            try NewestFirstPage.fetch(db, from: "SELECT * FROM notifications WHERE user_id = :user", arguments: ["user": userId],
                                      page: page, ordering: "notifications") { row in
                AlertNotification(id: row["id"], userId: row["user_id"], alertId: row["alert_id"] ?? "", classId: row["class_id"] ?? "",
                                  createdAt: Date(millisecondsSince1970: row["created_at"]), read: row["read"])
            }
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
