import ClassTodayCore
import Foundation
import GRDB

/// Runs a ``ClassSearch`` against SQLite. Each step is one statement that selects only keys: geohash ranges on
/// the `classes_by_geohash` index or the FTS5 index select candidates, and the exact haversine distance, box and
/// keyword checks, every filter and the keyset condition apply in the same WHERE clause. The page's listings are
/// then read in one more statement, so that writer, images and favourite flags are looked up for the page only,
/// never for every candidate.
///
/// Nearest-first searches walk the circle's geohash cells nearest first (``NearestCellWalk``): a cell holding more
/// than ``crowdedCell`` listings is split into its children, any other is read with one cached one-range
/// statement, and the walk stops once the page holds listings nearer than the next cell can offer. A dense city
/// is read in small cells around the centre, a sparse region in large ones, and neither reads the whole circle.
package struct SQLiteClassSearch {
    let search: ClassSearch
    let page: PageRequest
    let viewerId: String?

    /// The search `search` for the page `page` as `viewerId` sees it.
    package init(search: ClassSearch, page: PageRequest, viewerId: String?) {
        self.search = search
        self.page = page
        self.viewerId = viewerId
    }

    /// What one search did, for benchmarks: the geohash ranges it read (nil when it read no geo index).
    package struct Trace {
        package var ranges: [GeohashRange]?
    }

    /// The ordering name cursors of this search carry.
    var ordering: String { search.sort.rawValue }

    package func run(_ db: Database) throws -> Page<ClassView> {
        try runTraced(db).page
    }

    /// Runs the search and says which ranges it read.
    package func runTraced(_ db: Database) throws -> (page: Page<ClassView>, trace: Trace) {
        let keys: [Key]
        let trace: Trace
        if search.sort == .distance, let circle = search.circle {
            (keys, trace) = try nearestFirst(db, circle: circle)
        } else {
            let ranges = search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) }
                ?? search.box.map(GeohashCover.box)
            keys = try fetchKeys(db, ranges: ranges, limit: page.limit + 1)
            trace = Trace(ranges: ranges)
        }
        return (try views(for: keys, db), trace)
    }

    /// The sort key of one result.
    private struct Key {
        let id: String
        let value: PageCursorValue
        let distance: Double?

        init(row: Row, sort: ClassSearch.Sort) {
            id = row["id"]
            distance = row["distance"]
            switch sort {
            case .distance: value = .double(row["distance"])
            case .relevance: value = .double(row["rank"])
            case .recent: value = .int(row["created_at"])
            }
        }
    }

    private func nearestFirst(_ db: Database, circle: ClassSearch.Circle) throws -> ([Key], Trace) {
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var keys = NearestFirstPage<Key>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: \.id)
        var read: [GeohashRange] = []
        while let entry = walk.popNearest(), !keys.settle(before: entry.minimumDistance) {
            let range = GeohashRange(cell: entry.cell)
            let candidates = try cellCandidates(db, entry.cell)
            if candidates.isCrowded, entry.cell.precision < Geohash.storagePrecision {
                walk.split(entry)
                continue
            }
            keys.add(try fetchKeys(db, ranges: [range], limit: keys.stillWanted, cell: entry.cell, rowids: candidates.keywordHits))
            read.append(range)
        }
        return (keys.finish(), Trace(ranges: read))
    }

    /// The most candidates a cell may hold for a nearest-first search to read it rather than split it: few
    /// enough that reading and sorting them is cheap, many enough that sparse regions are read in large cells.
    static let crowdedCell = 64
    /// The most keyword hits a cell may hold for a keyword walk to read it: higher than ``crowdedCell``, since the
    /// hits are already in hand (one FTS query) and each split costs an FTS query per child read.
    static let crowdedKeywordCell = 256

    /// Whether `cell` holds more than ``crowdedCell`` candidates, and for a keyword search the rowids of its keyword
    /// hits when it does not. Listings (deleted ones included) are counted on the geohash index without reading a
    /// row; keyword hits (more than ``crowdedKeywordCell`` makes a cell crowded) come from one FTS query, which then
    /// also serves the cell's read.
    private func cellCandidates(_ db: Database, _ cell: Geohash) throws -> (isCrowded: Bool, keywordHits: [Int64]?) {
        if let keyword = search.keyword, let match = ClassSearchDocument.match(keyword, in: cell) {
            let statement = try db.cachedStatement(sql: "SELECT rowid FROM class_search WHERE class_search MATCH ? LIMIT ?")
            let hits = try Int64.fetchAll(statement, arguments: [match, Self.crowdedKeywordCell + 1])
            return hits.count > Self.crowdedKeywordCell ? (true, nil) : (false, hits)
        }
        let range = GeohashRange(cell: cell)
        let statement = try db.cachedStatement(sql: """
            SELECT COUNT(*) FROM (SELECT 1 FROM classes INDEXED BY classes_by_geohash WHERE geohash >= ? AND geohash < ? LIMIT ?)
            """)
        let count = try Int.fetchOne(statement, arguments: [range.lower, range.upper, Self.crowdedCell + 1]) ?? 0
        return (count > Self.crowdedCell, nil)
    }

    /// The page of listings for the keys (fetched with `limit + 1`: the extra key only says there is more).
    private func views(for keys: [Key], _ db: Database) throws -> Page<ClassView> {
        let visible = Array(keys.prefix(page.limit))
        let ids = visible.map(\.id)
        let fetched = try ClassViewQuery.fetchAll(
            db, viewerId: viewerId, where: "c.id IN (SELECT value FROM json_each(?))", arguments: [StoredList.encodeStrings(ids)])
        let byId = Dictionary(fetched.map { ($0.listing.id, $0) }, uniquingKeysWith: { first, _ in first })
        let items = visible.compactMap { key in
            byId[key.id].map { ClassView(listing: $0.listing, writer: $0.writer, isFavorite: $0.isFavorite, distance: key.distance) }
        }
        let next = keys.count > page.limit ? visible.last.map { PageCursor(ordering: ordering, values: [$0.value, .string($0.id)]).encoded } : nil
        return Page(items: items, nextCursor: next)
    }

    /// Keys of the candidates in `ranges` (all listings when nil) that satisfy everything, after the cursor. A
    /// `cell` (one cell of a nearest-first walk, whose range `ranges` holds) keeps the prepared statement for the
    /// walk's next cells, and for a keyword search comes with the rowids of its keyword hits (`keywordHits`),
    /// which then replace the keyword condition. A cell's hits that need verification (``SearchQuery/needsVerification``)
    /// are read in order with their text and confirmed here only until `limit` keys are found, rather than every
    /// hit in SQL.
    private func fetchKeys(
        _ db: Database, ranges: [GeohashRange]?, limit: Int, cell: Geohash? = nil, rowids keywordHits: [Int64]? = nil
    ) throws -> [Key] {
        if let keywordHits, keywordHits.isEmpty { return [] }
        let verified = keywordHits != nil ? search.keyword.flatMap { $0.needsVerification ? $0 : nil } : nil
        guard let statement = statement(ranges: ranges, limit: verified == nil ? limit : keywordHits?.count ?? limit,
                                        keywordHits: keywordHits, withText: verified != nil)
        else { return [] }
        let prepared = cell != nil ? try db.cachedStatement(sql: statement.sql) : try db.makeStatement(sql: statement.sql)
        guard let verified else {
            return try Row.fetchAll(prepared, arguments: statement.arguments).map { Key(row: $0, sort: search.sort) }
        }
        var keys: [Key] = []
        let rows = try Row.fetchCursor(prepared, arguments: statement.arguments)
        while keys.count < limit, let row = try rows.next() {
            if verified.matches(ClassSearchDocument.text(name: row["name"], description: row["description"])) {
                keys.append(Key(row: row, sort: search.sort))
            }
        }
        return keys
    }

    /// The statement of the first step (the first ring, for nearest-first searches); nil when nothing can match.
    func firstStatement() -> (sql: String, arguments: StatementArguments)? {
        if search.sort == .distance, let circle = search.circle {
            let nearest = GeohashRange(cell: Geohash(circle.center, precision: 6))
            return statement(ranges: [nearest], limit: page.limit + 1)
        }
        let ranges = search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) } ?? search.box.map(GeohashCover.box)
        return statement(ranges: ranges, limit: page.limit + 1)
    }

    /// One statement: candidates in `ranges` (all listings when nil) that satisfy everything, after the cursor.
    /// `withText` selects name and description instead of confirming a keyword that needs verification in SQL.
    private func statement(
        ranges: [GeohashRange]?, limit: Int, keywordHits: [Int64]? = nil, withText: Bool = false
    ) -> (sql: String, arguments: StatementArguments)? {
        var conditions: [String] = []
        var arguments: [String: (any DatabaseValueConvertible)?] = [:]
        var columns = "c.id, c.created_at"
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
            // searches fast, so pin the index unless the keyword index drives the query (relevance order).
            if search.sort != .relevance || search.keyword == nil { indexHint = "INDEXED BY classes_by_geohash" }
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
            columns += ", ct_distance(c.lat, c.lon, :centerLat, :centerLon) AS distance"
            conditions.append("distance <= :radius")
            arguments["centerLat"] = circle.center.lat
            arguments["centerLon"] = circle.center.lon
            arguments["radius"] = circle.radius
        }
        if let keyword = search.keyword {
            if let keywordHits {
                // One cell of a walk: its keyword hits (one FTS doclist intersection, already read) drive.
                indexHint = ""
                conditions.append("c.rowid IN (SELECT value FROM json_each(:hits))")
                arguments["hits"] = "[" + keywordHits.map(String.init).joined(separator: ",") + "]"
            } else if search.sort == .relevance {
                arguments["match"] = ClassSearchDocument.match(keyword)
                join = "JOIN class_search ON class_search.rowid = c.rowid"
                conditions.append("class_search MATCH :match")
                columns += ", bm25(class_search) AS rank"
            } else if ranges != nil {
                // The area drives: each candidate's tokens are checked by rowid, never the keyword's whole doclist.
                arguments["match"] = ClassSearchDocument.match(keyword)
                conditions.append("EXISTS (SELECT 1 FROM class_search WHERE class_search MATCH :match AND class_search.rowid = c.rowid)")
            } else {
                arguments["match"] = ClassSearchDocument.match(keyword)
                conditions.append("c.rowid IN (SELECT rowid FROM class_search WHERE class_search MATCH :match)")
            }
            if withText {
                columns += ", c.name, c.description"
            } else if keyword.needsVerification {
                conditions.append("ct_matches(:query, c.name, c.description)")
                arguments["query"] = keyword.canonicalText
            }
        }
        // Keyset: (key, id) ascending for distance and relevance, descending for recent.
        let (key, ascending): (String, Bool) = switch search.sort {
        case .distance: ("distance", true)
        case .relevance: ("rank", true)
        case .recent: ("c.created_at", false)
        }
        let direction = ascending ? "" : " DESC"
        let orderBy = "\(key)\(direction), c.id\(direction)"
        if let after = page.after, let value = after.values.first, let id = after.values.last?.string {
            let beyond = ascending ? ">" : "<"
            conditions.append("(\(key) \(beyond) :afterValue OR (\(key) = :afterValue AND c.id \(beyond) :afterId))")
            arguments["afterValue"] = value.databaseValue
            arguments["afterId"] = id
        }
        arguments["limit"] = limit
        let sql = """
            SELECT \(columns) FROM classes c \(indexHint) \(join)
            WHERE c.deleted_at IS NULL AND \(conditions.isEmpty ? "1" : conditions.joined(separator: " AND "))
            ORDER BY \(orderBy) LIMIT :limit
            """
        return (sql, StatementArguments(arguments))
    }
}

extension PageCursorValue {
    /// The value as an SQL argument.
    var databaseValue: any DatabaseValueConvertible {
        switch self {
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        }
    }
}
