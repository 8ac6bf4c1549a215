import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Runs a ``ClassSearch`` against PostgreSQL, the port of ``SQLiteClassSearch`` with the same results, order and
/// cursors. Each step is one statement that selects only keys: geohash ranges on the B-tree `classes_by_geohash`
/// index (text `COLLATE "C"`, byte order as in SQLite) or the GIN index on `classes.search` select candidates,
/// and the exact haversine distance (``PostgresClassViewQuery/haversineSQL(lat1:lon1:lat2:lon2:)``), box and
/// keyword checks, every filter and the keyset condition apply in the same statement. The page's listings are
/// then read in one more statement.
///
/// Nearest-first searches walk the circle's geohash cells nearest first (``NearestCellWalk``) exactly like
/// SQLite: a cell holding more than ``crowdedCell`` listings is split, any other is read with one one-range
/// statement, and the walk stops once the page holds listings nearer than the next cell can offer.
///
/// Keywords: `search @@ tsQuery` selects a superset of the matches; when ``SearchQuery/needsVerification`` the
/// candidates are confirmed in Swift with ``SearchQuery/matches(_:)-(String)`` (SQLite does it in SQL with
/// `ct_matches`), reading further candidates until the page is full or none are left, so that pages are as full
/// as SQLite's.
///
/// Relevance order differs from SQLite's by design: PostgreSQL has no bm25, so the rank is `ts_rank` of the
/// exact-lexeme tsvector (stored negated, so that the smaller key comes first as with bm25). Pages are stable:
/// the rank of a listing depends only on its tokens and the query, and ties are broken by id.
struct PostgresClassSearch {
    let search: ClassSearch
    let page: PageRequest
    let viewerId: String?
    let logger: Logger

    /// What one search did, for benchmarks: the geohash ranges it read (nil when it read no geo index).
    struct Trace {
        var ranges: [GeohashRange]?
    }

    /// The ordering name cursors of this search carry.
    var ordering: String { search.sort.rawValue }

    /// The most index entries a cell may hold for a nearest-first search to read it rather than split it (the
    /// value ``SQLiteClassSearch/crowdedCell`` uses).
    static let crowdedCell = SQLiteClassSearch.crowdedCell

    /// The fewest candidates read per statement when keyword candidates are confirmed in Swift.
    private static let verificationBatch = 64

    /// Runs the search on `connection` (ideally inside one read-only snapshot transaction).
    func run(_ connection: PostgresConnection) async throws -> Page<ClassView> {
        try await runTraced(connection).page
    }

    /// Runs the search and says which ranges it read.
    func runTraced(_ connection: PostgresConnection) async throws -> (page: Page<ClassView>, trace: Trace) {
        let keys: [Key]
        let trace: Trace
        if search.sort == .distance, let circle = search.circle {
            (keys, trace) = try await nearestFirst(connection, circle: circle)
        } else {
            let ranges = search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) }
                ?? search.box.map(GeohashCover.box)
            keys = try await fetchKeys(connection, ranges: ranges, limit: page.limit + 1)
            trace = Trace(ranges: ranges)
        }
        return (try await views(for: keys, connection), trace)
    }

    /// The sort key of one result, and the text needed to confirm a keyword.
    private struct Key {
        let id: String
        let value: PageCursorValue
        let distance: Double?
        let text: String?

        init(row: PostgresRandomAccessRow, sort: ClassSearch.Sort) throws {
            id = try row["id"].decode(String.self)
            distance = row.contains("distance") ? try row["distance"].decode(Double?.self) : nil
            switch sort {
            case .distance: value = .double(distance ?? 0)
            case .relevance: value = .double(try row["rank"].decode(Double.self))
            case .recent: value = .int(try row["created_at"].decode(Int64.self))
            }
            if row.contains("name") {
                text = ClassSearchDocument.text(name: try row["name"].decode(String.self),
                                                description: try row["description"].decode(String.self))
            } else {
                text = nil
            }
        }
    }

    /// A keyset position: the sort value and id of the last result seen.
    private struct Position {
        let value: PageCursorValue
        let id: String
    }

    /// The position the page request continues after, if any.
    private var startPosition: Position? {
        guard let after = page.after, let value = after.values.first, let id = after.values.last?.string else { return nil }
        return Position(value: value, id: id)
    }

    private func nearestFirst(_ connection: PostgresConnection, circle: ClassSearch.Circle) async throws -> ([Key], Trace) {
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        // Ids compare by bytes, like `COLLATE "C"` in the statements.
        var keys = NearestFirstPage<Key>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: \.id)
        var read: [GeohashRange] = []
        while let entry = walk.popNearest(), !keys.settle(before: entry.minimumDistance) {
            let range = GeohashRange(cell: entry.cell)
            if try await isCrowded(connection, range), entry.cell.precision < Geohash.storagePrecision {
                walk.split(entry)
                continue
            }
            keys.add(try await fetchKeys(connection, ranges: [range], limit: keys.stillWanted))
            read.append(range)
        }
        return (keys.finish(), Trace(ranges: read))
    }

    /// Whether the cell `range` holds more than ``crowdedCell`` listings (deleted ones included), counted on the
    /// geohash index.
    private func isCrowded(_ connection: PostgresConnection, _ range: GeohashRange) async throws -> Bool {
        let query: PostgresQuery = """
            SELECT count(*) FROM (SELECT 1 FROM classes WHERE geohash >= \(range.lower) AND geohash < \(range.upper)
                LIMIT \(Self.crowdedCell + 1)) cell
            """
        for try await count in try await connection.query(query, logger: logger).decode(Int.self) {
            return count > Self.crowdedCell
        }
        return false
    }

    /// The page of listings for the keys (fetched with `limit + 1`: the extra key only says there is more).
    private func views(for keys: [Key], _ connection: PostgresConnection) async throws -> Page<ClassView> {
        let visible = Array(keys.prefix(page.limit))
        let fetched = try await PostgresClassViewQuery.fetchAll(connection, logger: logger, viewerId: viewerId, ids: visible.map(\.id))
        let byId = Dictionary(fetched.map { ($0.listing.id, $0) }, uniquingKeysWith: { first, _ in first })
        let items = visible.compactMap { key in
            byId[key.id].map { ClassView(listing: $0.listing, writer: $0.writer, isFavorite: $0.isFavorite, distance: key.distance) }
        }
        let next = keys.count > page.limit ? visible.last.map { PageCursor(ordering: ordering, values: [$0.value, .string($0.id)]).encoded } : nil
        return Page(items: items, nextCursor: next)
    }

    /// Up to `limit` keys of the candidates in `ranges` (all listings when nil) that satisfy everything, after the
    /// cursor, in sort order. Keywords needing verification are confirmed here, reading on past rejected
    /// candidates until `limit` keys are found or no candidate is left.
    private func fetchKeys(_ connection: PostgresConnection, ranges: [GeohashRange]?, limit: Int) async throws -> [Key] {
        let verified = search.keyword.flatMap { $0.needsVerification ? $0 : nil }
        var keys: [Key] = []
        var position = startPosition
        while keys.count < limit {
            let batch = verified == nil ? limit - keys.count : max(limit - keys.count, Self.verificationBatch)
            guard let query = statement(ranges: ranges, limit: batch, after: position, withText: verified != nil) else { break }
            let fetched = try await connection.query(query, logger: logger).collect().map {
                try Key(row: $0.makeRandomAccess(), sort: search.sort)
            }
            if let verified {
                keys += fetched.filter { verified.matches($0.text ?? "") }
            } else {
                keys += fetched
            }
            guard fetched.count == batch, let last = fetched.last else { break }
            position = Position(value: last.value, id: last.id)
        }
        return Array(keys.prefix(limit))
    }

    /// One statement: candidates in `ranges` (all listings when nil) that satisfy everything but a keyword's
    /// verification, after `position`, in sort order; nil when nothing can match. `withText` also selects name
    /// and description.
    private func statement(ranges: [GeohashRange]?, limit: Int, after position: Position?, withText: Bool) -> PostgresQuery? {
        var binds = PostgresRows.Binds()
        var columns = ["c.id", "c.created_at"]
        var conditions = ["c.deleted_at IS NULL"]
        var outer: [String] = []

        conditions += filterConditions(&binds)
        if let ranges {
            if ranges.isEmpty { return nil }
            let alternatives = ranges.map { range in
                "(c.geohash >= \(binds.bind(range.lower)) AND c.geohash < \(binds.bind(range.upper)))"
            }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        if let box = search.box {
            conditions.append("c.lat BETWEEN \(binds.bind(box.minLat)) AND \(binds.bind(box.maxLat))")
            let (minLon, maxLon) = (binds.bind(box.minLon), binds.bind(box.maxLon))
            conditions.append(box.crossesAntimeridian ? "(c.lon >= \(minLon) OR c.lon <= \(maxLon))" : "c.lon BETWEEN \(minLon) AND \(maxLon)")
        }
        if let circle = search.circle {
            let distance = PostgresClassViewQuery.haversineSQL(
                lat1: binds.bind(circle.center.lat), lon1: binds.bind(circle.center.lon), lat2: "c.lat", lon2: "c.lon")
            columns.append("\(distance) AS distance")
            outer.append("k.distance <= \(binds.bind(circle.radius))")
        }
        if let keyword = search.keyword {
            let query = binds.bind(keyword.tsQuery) + "::tsquery"
            conditions.append("c.search @@ \(query)")
            if search.sort == .relevance {
                columns.append("(-ts_rank(c.search, \(query)))::float8 AS rank")
            }
        }
        if withText { columns += ["c.name", "c.description"] }
        // Keyset: (key, id) ascending for distance and relevance, descending for recent.
        let (key, ascending): (String, Bool) = switch search.sort {
        case .distance: ("k.distance", true)
        case .relevance: ("k.rank", true)
        case .recent: ("k.created_at", false)
        }
        let direction = ascending ? "" : " DESC"
        if let position {
            if case .string = position.value {
                // SQLite orders numbers before text: nothing follows a text key ascending, everything descending.
                if ascending { return nil }
            } else {
                let value = keysetValue(position.value, &binds)
                let beyond = ascending ? ">" : "<"
                let id = binds.bind(position.id)
                outer.append("(\(key) \(beyond) \(value) OR (\(key) = \(value) AND k.id COLLATE \"C\" \(beyond) \(id)))")
            }
        }
        let limitPlaceholder = binds.bind(limit)
        return binds.query("""
            SELECT * FROM (SELECT \(columns.joined(separator: ", ")) FROM classes c
                WHERE \(conditions.joined(separator: " AND "))) k
            WHERE \(outer.isEmpty ? "true" : outer.joined(separator: " AND "))
            ORDER BY \(key)\(direction), k.id COLLATE "C"\(direction) LIMIT \(limitPlaceholder)
            """)
    }

    /// The conditions of the search's plain column filters (status, type, district, masks, price).
    private func filterConditions(_ binds: inout PostgresRows.Binds) -> [String] {
        var conditions: [String] = []
        if let status = search.status { conditions.append("c.status = \(binds.bind(status.rawValue))") }
        if let type = search.type { conditions.append("c.type = \(binds.bind(type.rawValue))") }
        if let district = search.keywordLocation { conditions.append("c.keyword_location = \(binds.bind(district))") }
        for (column, mask) in [("subjects_mask", search.subjects.map(BitMask.of)), ("targets_mask", search.targets.map(BitMask.of)),
                               ("days_mask", search.days.map(BitMask.of))] {
            guard let mask else { continue }
            conditions.append("(c.\(column) & \(binds.bind(mask))) <> 0")
        }
        if let minPrice = search.minPrice { conditions.append("c.price >= \(binds.bind(minPrice))") }
        if let maxPrice = search.maxPrice { conditions.append("c.price <= \(binds.bind(maxPrice))") }
        return conditions
    }

    /// The placeholder of a cursor's numeric sort value: an integer for the creation time, else a double.
    private func keysetValue(_ value: PageCursorValue, _ binds: inout PostgresRows.Binds) -> String {
        switch (search.sort, value) {
        case (.recent, .int(let milliseconds)): binds.bind(milliseconds)
        case (_, .string(let text)): binds.bind(text)
        case (_, let number): binds.bind(number.double ?? 0)
        }
    }
}
