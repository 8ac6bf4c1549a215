import ClassTodayCore
import Foundation

/// Alerts, their cell index, the outbox of classes to fan out and notifications, on either backend.
///
/// Several PostgreSQL nodes may fan out at once: ``fanOut(limit:at:)`` claims queued classes skipping rows another
/// node holds (``SQLDialect/lockSkippingLocked``), so each class is taken off the queue, and notified about, by
/// exactly one node.
public struct SQLAlertRepository: AlertRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func create(_ alert: Alert) async throws {
        try await database.transaction { db in
            try await db.execute("""
                INSERT INTO alerts (id, user_id, lat, lon, radius, query, type, subjects, targets, days, subjects_mask,
                    targets_mask, days_mask, max_price, created_at)
                VALUES (\(alert.id), \(alert.userId), \(alert.center.lat), \(alert.center.lon), \(alert.radius), \(alert.query),
                    \(alert.type?.rawValue), \(alert.subjects.map(StoredList.encode)), \(alert.targets.map(StoredList.encode)),
                    \(alert.days.map(StoredList.encode)), \(BitMask.of(alert.subjects ?? [])), \(BitMask.of(alert.targets ?? [])),
                    \(BitMask.of(alert.days ?? [])), \(alert.maxPrice), \(alert.createdAt.millisecondsSince1970))
                """)
            // Every cell row repeats what matching reads (see migration 0006), so that matching never reads `alerts`.
            try await db.execute("""
                INSERT INTO alert_index (cell, alert_id, user_id, lat, lon, radius, query, type, subjects_mask, targets_mask,
                    days_mask, max_price)
                SELECT cell.value, a.id, a.user_id, a.lat, a.lon, a.radius, a.query, a.type, a.subjects_mask, a.targets_mask,
                    a.days_mask, a.max_price
                FROM alerts a, \(db.dialect.list(AlertCells.cells(for: alert))) cell WHERE a.id = \(alert.id)
                """)
        }
    }

    public func alerts(of userId: String, page: PageRequest) async throws -> Page<Alert> {
        try await SQLPage.newestFirst(database, from: "SELECT * FROM alerts WHERE user_id = \(userId)", page: page,
                                      ordering: "alerts", decode: Self.alert(row:))
    }

    public func delete(id: String, by userId: String) async throws {
        try await database.transaction { db in
            guard let row = try await db.row("SELECT user_id FROM alerts WHERE id = \(id) \(raw: db.dialect.lockForUpdate)") else {
                throw DomainError.notFound("alert")
            }
            try Alert.checkOwner(try row["user_id"], is: userId)
            try await db.execute("DELETE FROM alerts WHERE id = \(id)")
        }
    }

    public func fanOut(limit: Int, at date: Date) async throws -> AlertFanOutBatch {
        try await database.transaction { db in
            let queued: [String] = try await db.rows("""
                SELECT class_id FROM alert_outbox ORDER BY queued_at, class_id LIMIT \(limit) \(raw: db.dialect.lockSkippingLocked)
                """).map { try $0["class_id"] }
            guard !queued.isEmpty else { return AlertFanOutBatch(classCount: 0, notifications: []) }
            let listings = try await db.rows("SELECT \(raw: ClassViewQuery.listingColumns) FROM classes c WHERE c.deleted_at IS NULL AND \(ClassModeration.visible(at: date)) AND c.id IN \(db.dialect.list(queued))")
                .map(ClassListing.init(row:))
            let byId = Dictionary(listings.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var notifications: [AlertNotification] = []
            for classId in queued {
                guard let listing = byId[classId] else { continue }
                notifications += try await Self.notify(about: listing, at: date, db)
            }
            try await db.execute("DELETE FROM alert_outbox WHERE class_id IN \(db.dialect.list(queued))")
            return AlertFanOutBatch(classCount: queued.count, notifications: notifications)
        }
    }

    /// Records the notifications of `listing` inside the caller's transaction (a fan-out batch); none unless it is
    /// open and has a location.
    ///
    /// Candidates come from the cell index (the listing's cell and the coarser cells containing it), whose rows
    /// carry every field matching reads; every condition of ``Alert/matches(_:)`` but the keyword runs in the same
    /// SQL statement, the cheap column tests before the distance. Keywords are tested here against the listing's
    /// text cut once (``KeywordFilter``), not once per alert.
    private static func notify(about listing: ClassListing, at date: Date, _ db: any SQLExecutor) async throws -> [AlertNotification] {
        guard let location = listing.location, listing.status == .open else { return [] }
        let distance = db.dialect.distance(lat1: "a.lat", lon1: "a.lon", lat2: "here.lat", lon2: "here.lon")
        let candidates = try await db.rows("""
            SELECT a.alert_id, a.user_id, a.query
            FROM alert_index a, (SELECT \(location.lat) AS lat, \(location.lon) AS lon, CAST(\(listing.price) AS BIGINT) AS price) here
            WHERE a.cell IN \(db.dialect.list(AlertCells.lookupKeys(for: location)))
              AND (a.type IS NULL OR a.type = \(listing.type.rawValue))
              AND (a.subjects_mask = 0 OR (a.subjects_mask & \(BitMask.of(listing.subjects))) <> 0)
              AND (a.targets_mask = 0 OR (a.targets_mask & \(BitMask.of(listing.targets))) <> 0)
              AND (a.days_mask = 0 OR (a.days_mask & \(BitMask.of(listing.days))) <> 0)
              AND (a.max_price IS NULL OR (here.price IS NOT NULL AND here.price <= a.max_price))
              AND a.user_id <> \(listing.writerId)
              AND NOT \(BlockSQL.between("a.user_id", "\(listing.writerId)"))
              AND \(distance) <= a.radius
            """)
        var keywords = KeywordFilter(listing: listing)
        var notifications: [AlertNotification] = []
        for row in candidates where keywords.accepts(try row["query"]) {
            notifications.append(AlertNotification(id: Identifier.make(at: date), userId: try row["user_id"],
                                                   alertId: try row["alert_id"], classId: listing.id, createdAt: date, read: false))
        }
        guard !notifications.isEmpty else { return [] }
        var insert: SQLStatement = "INSERT INTO notifications (id, user_id, kind, alert_id, class_id, created_at) VALUES "
        insert.isCached = false
        for (index, notification) in notifications.enumerated() {
            insert.append(index == 0 ? "" : ", ")
            insert.append("""
                (\(notification.id), \(notification.userId), 'alert', \(notification.alertId), \(listing.id), \(date.millisecondsSince1970))
                """)
        }
        try await db.execute(insert)
        // A push for each owner with a device, queued in the same transaction (the writer counts as the sender, so that
        // blocks hold back the push as they hold back the notification).
        var queue: SQLStatement = """
            INSERT INTO push_outbox (id, user_id, kind, room_id, sender_id, message_id, class_id, queued_at)
            SELECT n.id, n.user_id, 'alert', NULL, \(listing.writerId), NULL, n.class_id, n.created_at FROM notifications n
            WHERE n.id IN \(db.dialect.list(notifications.map(\.id))) AND EXISTS (SELECT 1 FROM devices d WHERE d.user_id = n.user_id)
            """
        queue.isCached = true
        try await db.execute(queue)
        return notifications
    }

    public func notifications(of userId: String, page: PageRequest) async throws -> Page<AlertNotification> {
        try await SQLPage.newestFirst(database, from: "SELECT * FROM notifications WHERE user_id = \(userId)", page: page,
                                      ordering: "notifications") { row in
            AlertNotification(id: try row["id"], userId: try row["user_id"], alertId: try row["alert_id"] ?? "",
                              classId: try row["class_id"] ?? "", createdAt: try row.date("created_at"), read: try row["read"])
        }
    }

    @discardableResult
    public func markRead(ids: [String], userId: String) async throws -> Int {
        let dialect = database.dialect
        return try await database.execute("""
            UPDATE notifications SET read = \(raw: dialect.trueLiteral)
            WHERE user_id = \(userId) AND read = \(raw: dialect.falseLiteral) AND id IN \(dialect.list(ids))
            """)
    }

    private static func alert(row: SQLRow) throws -> Alert {
        let type: String? = try row["type"]
        let subjects: String? = try row["subjects"]
        let targets: String? = try row["targets"]
        let days: String? = try row["days"]
        return Alert(
            id: try row["id"], userId: try row["user_id"], center: GeoPoint(lat: try row["lat"], lon: try row["lon"]),
            radius: try row["radius"], query: try row["query"], type: type.flatMap(ClassType.init(rawValue:)),
            subjects: subjects.map { StoredList.decode($0) }, targets: targets.map { StoredList.decode($0) },
            days: days.map { StoredList.decode($0) }, maxPrice: try row["max_price"], createdAt: try row.date("created_at"))
    }
}

/// The transactional outbox of classes waiting for alert fan-out: creating or reopening a class queues it in the
/// same transaction; ``SQLAlertRepository/fanOut(limit:at:)`` takes it off.
enum AlertOutbox {
    /// The statement queueing `classId` (a class already queued stays queued once).
    static func enqueue(classId: String, at date: Date) -> SQLStatement {
        "INSERT INTO alert_outbox (class_id, queued_at) VALUES (\(classId), \(date.millisecondsSince1970)) ON CONFLICT (class_id) DO NOTHING"
    }
}

extension ClassListing {
    /// Decodes a `classes` row (``ClassViewQuery/listingColumns``).
    init(row: SQLRow) throws {
        var columns = SQLRowReader(row)
        try self.init(reading: &columns)
    }

    /// Decodes the listing's columns (``ClassViewQuery/listingColumns``), read in the order that selects them.
    init(reading columns: inout SQLRowReader) throws {
        let (id, type, name, description): (String, String, String, String) =
            (try columns.read("id"), try columns.read("type"), try columns.read("name"), try columns.read("description"))
        let (days, time, place): (String, String?, String?) = (try columns.read("days"), try columns.read("time"), try columns.read("place"))
        let (lat, lon): (Double?, Double?) = (try columns.read("lat"), try columns.read("lon"))
        let (keywordLocation, price, priceUnit): (String?, Int?, String) =
            (try columns.read("keyword_location"), try columns.read("price"), try columns.read("price_unit"))
        let (subjects, targets, capacity, status): (String, String, Int, String) =
            (try columns.read("subjects"), try columns.read("targets"), try columns.read("capacity"), try columns.read("status"))
        let (writerId, favoriteCount, createdAt, updatedAt): (String, Int, Int64, Int64) =
            (try columns.read("writer_id"), try columns.read("favorite_count"), try columns.read("created_at"), try columns.read("updated_at"))
        let hiddenAt: Int64?? = try columns.readIfSelected("hidden_at")
        let imageIds: String? = try columns.read("image_ids")
        self.init(
            id: id, type: ClassType(rawValue: type) ?? .sell, name: name, description: description, days: StoredList.decode(days),
            time: time, place: place, location: lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } },
            keywordLocation: keywordLocation, price: price, priceUnit: PriceUnit(rawValue: priceUnit) ?? .perHour,
            subjects: StoredList.decode(subjects), targets: StoredList.decode(targets), capacity: capacity,
            status: ClassStatus(rawValue: status) ?? .closed, imageIds: StoredList.decodeStrings(imageIds), writerId: writerId,
            favoriteCount: favoriteCount, createdAt: Date(millisecondsSince1970: createdAt),
            updatedAt: Date(millisecondsSince1970: updatedAt), hiddenAt: hiddenAt.flatMap { $0 }.map(Date.init(millisecondsSince1970:)))
    }
}
