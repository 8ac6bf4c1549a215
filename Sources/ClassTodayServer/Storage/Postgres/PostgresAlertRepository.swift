import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Alerts, their cell index and notifications stored in PostgreSQL: the port of ``SQLiteAlertRepository``.
///
/// Several server nodes may fan out at once: ``fanOut(limit:at:)`` claims queued classes with
/// `FOR UPDATE SKIP LOCKED`, so each class is taken off the queue, and notified about, by exactly one node.
public struct PostgresAlertRepository: AlertRepository {
    private let client: PostgresClient
    private let logger: Logger

    /// Creates the repository over an open store.
    public init(store: PostgresStore) {
        self.client = store.client
        self.logger = Logger(label: "classtoday.postgres.alerts")
    }

    public func create(_ alert: Alert) async throws {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            try await connection.query("""
                INSERT INTO alerts (id, user_id, lat, lon, radius, query, type, subjects, targets, days, subjects_mask,
                    targets_mask, days_mask, max_price, created_at)
                VALUES (\(alert.id), \(alert.userId), \(alert.center.lat), \(alert.center.lon), \(alert.radius), \(alert.query),
                    \(alert.type?.rawValue), \(alert.subjects.map(StoredList.encode)), \(alert.targets.map(StoredList.encode)),
                    \(alert.days.map(StoredList.encode)), \(BitMask.of(alert.subjects ?? [])), \(BitMask.of(alert.targets ?? [])),
                    \(BitMask.of(alert.days ?? [])), \(alert.maxPrice), \(alert.createdAt.millisecondsSince1970))
                """, logger: logger)
            // Every cell row repeats what matching reads, so that matching never reads `alerts`.
            try await connection.query("""
                INSERT INTO alert_index (cell, alert_id, user_id, lat, lon, radius, query, type, subjects_mask, targets_mask,
                    days_mask, max_price)
                SELECT cell, a.id, a.user_id, a.lat, a.lon, a.radius, a.query, a.type, a.subjects_mask, a.targets_mask,
                    a.days_mask, a.max_price
                FROM alerts a, unnest(\(AlertCells.cells(for: alert))::text[]) AS cell WHERE a.id = \(alert.id)
                """, logger: logger)
        }
    }

    public func alerts(of userId: String, page: PageRequest) async throws -> Page<Alert> {
        try await newestFirst(table: "alerts", userId: userId, page: page, ordering: "alerts", decode: Self.alert(row:))
    }

    public func delete(id: String, by userId: String) async throws {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            var owner: String?
            for try await userId in try await connection.query("SELECT user_id FROM alerts WHERE id = \(id) FOR UPDATE", logger: logger)
                .decode(String.self) {
                owner = userId
            }
            guard let owner else { throw DomainError.notFound("alert") }
            try Alert.checkOwner(owner, is: userId)
            try await connection.query("DELETE FROM alerts WHERE id = \(id)", logger: logger)
        }
    }

    /// Queues a class for fan-out inside the caller's transaction on `connection` (its creation or reopening); a
    /// class already queued stays queued once.
    static func enqueue(classId: String, at date: Date, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO alert_outbox (class_id, queued_at) VALUES (\(classId), \(date.millisecondsSince1970))
            ON CONFLICT (class_id) DO NOTHING
            """, logger: logger)
    }

    public func fanOut(limit: Int, at date: Date) async throws -> AlertFanOutBatch {
        let batch = try await PostgresRows.transaction(client, logger: logger) { connection in
            // Rows another node has claimed are skipped, not waited for: each class is fanned out by one node.
            var queued: [String] = []
            let claimed = try await connection.query("""
                SELECT class_id FROM alert_outbox ORDER BY queued_at, class_id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """, logger: logger)
            for try await classId in claimed.decode(String.self) {
                queued.append(classId)
            }
            guard !queued.isEmpty else { return AlertFanOutBatch(classCount: 0, notifications: []) }
            let views = try await PostgresClassViewQuery.fetchAll(connection, logger: logger, viewerId: nil, ids: queued)
            let byId = Dictionary(views.map { ($0.listing.id, $0) }, uniquingKeysWith: { first, _ in first })
            var notifications: [AlertNotification] = []
            for classId in queued {
                guard let view = byId[classId] else { continue }
                notifications += try await notify(about: view.listing, at: date, connection)
            }
            try await connection.query("DELETE FROM alert_outbox WHERE class_id = ANY(\(queued))", logger: logger)
            return AlertFanOutBatch(classCount: queued.count, notifications: notifications)
        }
        if batch.classCount > 0 {
            logger.debug("alert fan-out", metadata: ["classes": "\(batch.classCount)", "notifications": "\(batch.notifications.count)"])
        }
        return batch
    }

    /// Records the notifications of `listing` inside the caller's transaction (a fan-out batch); none unless it is
    /// open and has a location.
    ///
    /// Candidates come from the cell index (the listing's cell and the coarser cells containing it), whose rows
    /// carry every field matching reads; every condition of ``Alert/matches(_:)`` but the keyword runs in the same
    /// SQL statement, the distance with the haversine expression that agrees with ``Haversine/distance(_:_:)``.
    /// Keywords are tested here against the listing's text cut once (``KeywordFilter``), not once per alert.
    private func notify(about listing: ClassListing, at date: Date, _ connection: PostgresConnection) async throws -> [AlertNotification] {
        guard let location = listing.location, listing.status == .open else { return [] }
        let candidates = try await connection.query(Self.candidatesQuery(for: listing, at: location), logger: logger)
        var keywords = KeywordFilter(listing: listing)
        var firing: [(alertId: String, userId: String)] = []
        for try await (alertId, userId, query) in candidates.decode((String, String, String?).self) {
            if keywords.accepts(query) { firing.append((alertId, userId)) }
        }
        guard !firing.isEmpty else { return [] }
        let notifications = firing.map { alert in
            AlertNotification(id: Identifier.make(at: date), userId: alert.userId, alertId: alert.alertId, classId: listing.id,
                              createdAt: date, read: false)
        }
        try await connection.query("""
            INSERT INTO notifications (id, user_id, kind, alert_id, class_id, created_at)
            SELECT n.id, n.user_id, 'alert', n.alert_id, \(listing.id), \(date.millisecondsSince1970)
            FROM unnest(\(notifications.map(\.id))::text[], \(notifications.map(\.userId))::text[],
                \(notifications.map(\.alertId))::text[]) AS n(id, user_id, alert_id)
            """, logger: logger)
        return notifications
    }

    /// The alerts filed under the cells of `location` that `listing` satisfies in everything but the keyword, and
    /// that are not its writer's: `(alert_id, user_id, query)` rows.
    private static func candidatesQuery(for listing: ClassListing, at location: GeoPoint) -> PostgresQuery {
        var binds = PostgresRows.Binds()
        let cells = binds.bind(AlertCells.lookupKeys(for: location))
        let type = binds.bind(listing.type.rawValue)
        let subjects = binds.bind(BitMask.of(listing.subjects))
        let targets = binds.bind(BitMask.of(listing.targets))
        let days = binds.bind(BitMask.of(listing.days))
        let price = binds.bind(listing.price) + "::bigint"
        let writer = binds.bind(listing.writerId)
        let distance = PostgresClassViewQuery.haversineSQL(
            lat1: "lat", lon1: "lon", lat2: binds.bind(location.lat) + "::float8", lon2: binds.bind(location.lon) + "::float8")
        return binds.query("""
            SELECT alert_id, user_id, query FROM alert_index
            WHERE cell = ANY(\(cells)::text[])
              AND (type IS NULL OR type = \(type))
              AND (subjects_mask = 0 OR (subjects_mask & \(subjects)) <> 0)
              AND (targets_mask = 0 OR (targets_mask & \(targets)) <> 0)
              AND (days_mask = 0 OR (days_mask & \(days)) <> 0)
              AND (max_price IS NULL OR (\(price) IS NOT NULL AND \(price) <= max_price))
              AND user_id <> \(writer)
              AND \(distance) <= radius
            """)
    }

    public func notifications(of userId: String, page: PageRequest) async throws -> Page<AlertNotification> {
        try await newestFirst(table: "notifications", userId: userId, page: page, ordering: "notifications") { row in
            AlertNotification(
                id: try row["id"].decode(String.self), userId: try row["user_id"].decode(String.self),
                alertId: try row["alert_id"].decode(String?.self) ?? "", classId: try row["class_id"].decode(String?.self) ?? "",
                createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)), read: try row["read"].decode(Bool.self))
        }
    }

    @discardableResult
    public func markRead(ids: [String], userId: String) async throws -> Int {
        try await client.withConnection { connection in
            try await connection.query("""
                UPDATE notifications SET read = true WHERE user_id = \(userId) AND read = false AND id = ANY(\(ids)::text[])
                RETURNING 1
                """, logger: logger).collect().count
        }
    }

    /// One page of the rows of `table` (`alerts` or `notifications`) owned by `userId`, newest first.
    private func newestFirst<Item: Sendable>(
        table: String, userId: String, page: PageRequest, ordering: String, decode: @escaping (PostgresRandomAccessRow) throws -> Item
    ) async throws -> Page<Item> {
        var binds = PostgresRows.Binds()
        let owner = binds.bind(userId)
        return try await PostgresRows.newestFirstPage(client, logger: logger, from: "SELECT * FROM \(table) WHERE user_id = \(owner)",
                                                      binds: binds, page: page, ordering: ordering, decode: decode)
    }

    private static func alert(row: PostgresRandomAccessRow) throws -> Alert {
        let subjects = try row["subjects"].decode(String?.self)
        let targets = try row["targets"].decode(String?.self)
        let days = try row["days"].decode(String?.self)
        return Alert(
            id: try row["id"].decode(String.self), userId: try row["user_id"].decode(String.self),
            center: GeoPoint(lat: try row["lat"].decode(Double.self), lon: try row["lon"].decode(Double.self)),
            radius: try row["radius"].decode(Double.self), query: try row["query"].decode(String?.self),
            type: try row["type"].decode(String?.self).flatMap(ClassType.init(rawValue:)),
            subjects: subjects.map { StoredList.decode($0) }, targets: targets.map { StoredList.decode($0) },
            days: days.map { StoredList.decode($0) }, maxPrice: try row["max_price"].decode(Int?.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)))
    }
}
