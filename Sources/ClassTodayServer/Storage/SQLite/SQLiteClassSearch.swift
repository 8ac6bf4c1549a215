import ClassTodayCore
import Foundation
import GRDB

/// Runs a ``ClassSearch`` against SQLite as one statement per step: geohash ranges on the `classes_by_geohash`
/// index or the FTS5 index select candidates, the exact haversine distance, box and keyword checks and every
/// filter apply in the same WHERE clause, and keyset conditions continue after the cursor.
///
/// Nearest-first searches go ring by ring outwards (``GeohashCover/rings(center:radiusMeters:)``) and stop as soon
/// as the page is full of results no farther than the next ring could hold, so a dense city does not make a
/// small page read the whole circle.
struct SQLiteClassSearch {
    let search: ClassSearch
    let page: PageRequest
    let viewerId: String?

    /// The ordering name cursors of this search carry.
    var ordering: String { search.sort.rawValue }

    func run(_ db: Database) throws -> Page<ClassView> {
        if search.sort == .distance, let circle = search.circle {
            return try nearestFirst(db, circle: circle)
        }
        let ranges = search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) }
            ?? search.box.map(GeohashCover.box)
        return try ClassViewQuery.page(fetch(db, ranges: ranges, limit: page.limit + 1), limit: page.limit, cursor: cursor(for:view:))
    }

    private func nearestFirst(_ db: Database, circle: ClassSearch.Circle) throws -> Page<ClassView> {
        let rings = GeohashCover.rings(center: circle.center, radiusMeters: circle.radius)
        var found: [Row] = []
        for (index, ring) in rings.enumerated() {
            found += try fetch(db, ranges: ring.ranges, limit: page.limit + 1)
            found.sort { ($0["distance"] as Double, $0["id"] as String) < ($1["distance"] as Double, $1["id"] as String) }
            found = Array(found.prefix(page.limit + 1))
            let nextMinimum = rings.dropFirst(index + 1).map(\.minimumDistanceMeters).min() ?? .infinity
            if found.count > page.limit, let last = found.last, (last["distance"] as Double) <= nextMinimum {
                break
            }
        }
        return ClassViewQuery.page(found, limit: page.limit, cursor: cursor(for:view:))
    }

    private func cursor(for row: Row, view: ClassView) -> PageCursor {
        switch search.sort {
        case .distance: PageCursor(ordering: ordering, values: [.double(row["distance"]), .string(view.listing.id)])
        case .relevance: PageCursor(ordering: ordering, values: [.double(row["rank"]), .string(view.listing.id)])
        case .recent: PageCursor(ordering: ordering, values: [.int(row["created_at"]), .string(view.listing.id)])
        }
    }

    /// Candidates in `ranges` (all listings when nil) that satisfy everything, after the cursor.
    private func fetch(_ db: Database, ranges: [GeohashRange]?, limit: Int) throws -> [Row] {
        guard let statement = statement(ranges: ranges, limit: limit) else { return [] }
        return try Row.fetchAll(db, sql: statement.sql, arguments: statement.arguments)
    }

    /// The statement of the first step (the first ring, for nearest-first searches); nil when nothing can match.
    func firstStatement() -> (sql: String, arguments: StatementArguments)? {
        if search.sort == .distance, let circle = search.circle {
            return GeohashCover.rings(center: circle.center, radiusMeters: circle.radius).first.flatMap { statement(ranges: $0.ranges, limit: page.limit + 1) }
        }
        let ranges = search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) } ?? search.box.map(GeohashCover.box)
        return statement(ranges: ranges, limit: page.limit + 1)
    }

    /// One statement: candidates in `ranges` (all listings when nil) that satisfy everything, after the cursor.
    private func statement(ranges: [GeohashRange]?, limit: Int) -> (sql: String, arguments: StatementArguments)? {
        var conditions: [String] = []
        var arguments: [String: (any DatabaseValueConvertible)?] = [:]
        var extraColumns = ""
        var join = ""
        var indexHint = ""

        if let status = search.status {
            conditions.append("c.status = :status")
            arguments["status"] = status.rawValue
        }
        if let type = search.type {
            conditions.append("c.type = :type")
            arguments["type"] = type.rawValue
        }
        if let district = search.keywordLocation {
            conditions.append("c.keyword_location = :district")
            arguments["district"] = district
        }
        for (column, mask) in [("subjects_mask", search.subjects.map(BitMask.of)), ("targets_mask", search.targets.map(BitMask.of)),
                               ("days_mask", search.days.map(BitMask.of))] {
            guard let mask else { continue }
            conditions.append("(c.\(column) & :\(column)) != 0")
            arguments[column] = mask
        }
        if let minPrice = search.minPrice {
            conditions.append("c.price >= :minPrice")
            arguments["minPrice"] = minPrice
        }
        if let maxPrice = search.maxPrice {
            conditions.append("c.price <= :maxPrice")
            arguments["maxPrice"] = maxPrice
        }
        if let ranges {
            if ranges.isEmpty { return nil }
            var alternatives: [String] = []
            for (index, range) in ranges.enumerated() {
                alternatives.append("(c.geohash >= :lower\(index) AND c.geohash < :upper\(index))")
                arguments["lower\(index)"] = range.lower
                arguments["upper\(index)"] = range.upper
            }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
            // Without statistics SQLite prices a long OR of ranges above a scan; the ranges are what make geo
            // searches fast, so pin the index unless the keyword index drives the query.
            if search.keyword == nil { indexHint = "INDEXED BY classes_by_geohash" }
        }
        if let box = search.box {
            conditions.append("c.lat BETWEEN :minLat AND :maxLat")
            conditions.append(box.crossesAntimeridian ? "(c.lon >= :minLon OR c.lon <= :maxLon)" : "c.lon BETWEEN :minLon AND :maxLon")
            arguments["minLat"] = box.minLat
            arguments["maxLat"] = box.maxLat
            arguments["minLon"] = box.minLon
            arguments["maxLon"] = box.maxLon
        }
        if let circle = search.circle {
            extraColumns += ", ct_distance(c.lat, c.lon, :centerLat, :centerLon) AS distance"
            conditions.append("ct_distance(c.lat, c.lon, :centerLat, :centerLon) <= :radius")
            arguments["centerLat"] = circle.center.lat
            arguments["centerLon"] = circle.center.lon
            arguments["radius"] = circle.radius
        }
        if let keyword = search.keyword {
            arguments["match"] = keyword.ftsMatchExpression
            if search.sort == .relevance {
                join = "JOIN class_search ON class_search.rowid = c.rowid"
                conditions.append("class_search MATCH :match")
                extraColumns += ", bm25(class_search) AS rank"
            } else {
                conditions.append("c.rowid IN (SELECT rowid FROM class_search WHERE class_search MATCH :match)")
            }
            if keyword.needsVerification {
                conditions.append("ct_matches(:query, c.name, c.description)")
                arguments["query"] = keyword.canonicalText
            }
        }
        let orderBy: String
        switch search.sort {
        case .distance:
            orderBy = "distance, c.id"
            if let after = page.after, let distance = after.values.first?.double, let id = after.values.last?.string {
                conditions.append("(distance > :afterValue OR (distance = :afterValue AND c.id > :afterId))")
                arguments["afterValue"] = distance
                arguments["afterId"] = id
            }
        case .relevance:
            orderBy = "rank, c.id"
            if let after = page.after, let rank = after.values.first?.double, let id = after.values.last?.string {
                conditions.append("(rank > :afterValue OR (rank = :afterValue AND c.id > :afterId))")
                arguments["afterValue"] = rank
                arguments["afterId"] = id
            }
        case .recent:
            orderBy = "c.created_at DESC, c.id DESC"
            if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
                conditions.append("(c.created_at < :afterValue OR (c.created_at = :afterValue AND c.id < :afterId))")
                arguments["afterValue"] = createdAt
                arguments["afterId"] = id
            }
        }
        return ClassViewQuery.statement(
            viewerId: viewerId, indexHint: indexHint, join: join, extraColumns: extraColumns,
            where: conditions.isEmpty ? "1" : conditions.joined(separator: " AND "),
            orderBy: orderBy, limit: limit, arguments: StatementArguments(arguments))
    }
}
