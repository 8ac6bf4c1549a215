import ClassTodayCore
import Foundation

/// Runs a ``ClassSearch`` on either backend. Each step is one statement that selects only keys: geohash ranges on
/// the `classes_by_geohash` index or the keyword index select candidates, and the exact haversine distance
/// (``SQLDialect/distance(lat1:lon1:lat2:lon2:)``), box and keyword checks, every filter and the keyset condition
/// apply in the same statement. The page's listings are then read in one more statement
/// (``ClassViewQuery/views(ids:viewerId:_:)``), so that writer, images and favourite flags are looked up for the
/// page only, never for every candidate.
///
/// Nearest-first searches walk the circle's geohash cells nearest first (``NearestCellWalk``): a cell the backend's
/// index finds crowded (``ClassSearchIndex/cell(_:keyword:_:)``) is split into its children, any other is read with
/// one one-range statement, and the walk stops once the page holds listings nearer than the next cell can offer. A
/// dense city is read in small cells around the centre, a sparse region in large ones, and neither reads the whole
/// circle.
///
/// Keywords: the index's condition selects a superset of the matches; when ``SearchQuery/needsVerification`` the
/// candidates are confirmed by the index's SQL when it has some, or else here with ``SearchQuery/matches(_:)-(String)``,
/// reading further candidates until the page is full or none are left.
package struct SQLClassSearch {
    let search: ClassSearch
    let page: PageRequest
    let viewerId: String?
    /// The backend's SQL.
    let dialect: SQLDialect

    /// The search `search` for the page `page` as `viewerId` sees it, in `dialect`'s SQL.
    package init(search: ClassSearch, page: PageRequest, viewerId: String?, dialect: SQLDialect) {
        self.search = search
        self.page = page
        self.viewerId = viewerId
        self.dialect = dialect
    }

    /// The backend's keyword index.
    private var index: any ClassSearchIndex { dialect.classIndex }

    /// The fewest candidates read per statement when keyword candidates are confirmed in Swift.
    private static let verificationBatch = 64

    /// The ordering name cursors of this search carry.
    private var ordering: String { search.sort.rawValue }

    /// Runs the search on `db` (one snapshot: inside ``SQLDatabase/read(_:)``).
    package func run(_ db: any SQLExecutor) async throws -> Page<ClassView> {
        var scoped = self
        if let viewerId { scoped.blockedWriters = Set(try await BlockSQL.counterparts(of: viewerId, db)) }
        return try await scoped.runScoped(db)
    }

    /// The writers whose listings the viewer must not see (blocked either way), read once per search and left out
    /// in Swift: the key statements then select `writer_id`, and stay the same statements whoever the viewer blocked.
    private var blockedWriters: Set<String> = []

    private func runScoped(_ db: any SQLExecutor) async throws -> Page<ClassView> {
        let keys: [Key]
        if search.sort == .distance, let circle = search.circle {
            keys = try await nearestFirst(db, circle: circle)
        } else {
            keys = try await self.keys(db, ranges: coveringRanges, limit: page.limit + 1)
        }
        return try await views(for: keys, db)
    }

    /// The geohash ranges covering the search's circle or box; nil without either.
    private var coveringRanges: [GeohashRange]? {
        search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) } ?? search.box.map(GeohashCover.box)
    }

    /// The sort key of one result, and the text needed to confirm a keyword.
    private struct Key {
        let id: String
        let value: PageCursorValue
        let distance: Double?
        let text: String?
        let writerId: String?

        init(row: SQLRow, sort: ClassSearch.Sort) throws {
            id = try row["id"]
            writerId = row.contains("writer_id") ? try row["writer_id"] : nil
            distance = row.contains("distance") ? try row["distance"] : nil
            switch sort {
            case .distance: value = .double(distance ?? 0)
            case .relevance: value = .double(row.contains("rank") ? try row["rank"] : 0)
            case .recent: value = .int(try row["created_at"])
            }
            text = row.contains("name") ? ClassSearchDocument.text(name: try row["name"], description: try row["description"]) : nil
        }
    }

    /// A keyset position: the sort value and id of the last result seen.
    private struct Position {
        let value: PageCursorValue
        let id: String
    }

    private func nearestFirst(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> [Key] {
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var keys = NearestFirstPage<Key>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: \.id)
        while let entry = walk.popNearest(), !keys.settle(before: entry.minimumDistance) {
            let candidates = try await index.cell(entry.cell, keyword: search.keyword, db)
            if case .crowded = candidates, entry.cell.precision < Geohash.storagePrecision {
                walk.split(entry)
                continue
            }
            keys.add(try await self.keys(db, ranges: [GeohashRange(cell: entry.cell)], limit: keys.stillWanted, cell: candidates))
        }
        return keys.finish()
    }

    /// The page of listings for the keys (fetched with `limit + 1`: the extra key only says there is more).
    private func views(for keys: [Key], _ db: any SQLExecutor) async throws -> Page<ClassView> {
        let visible = Array(keys.prefix(page.limit))
        let fetched = try await ClassViewQuery.views(ids: visible.map(\.id), viewerId: viewerId, db)
        let byId = Dictionary(fetched.map { ($0.listing.id, $0) }, uniquingKeysWith: { first, _ in first })
        let items = visible.compactMap { key in
            byId[key.id].map { ClassView(listing: $0.listing, writer: $0.writer, isFavorite: $0.isFavorite, distance: key.distance) }
        }
        let next = keys.count > page.limit ? visible.last.map { PageCursor(ordering: ordering, values: [$0.value, .string($0.id)]).encoded } : nil
        return Page(items: items, nextCursor: next)
    }

    /// Up to `limit` keys of the candidates in `ranges` (all listings when nil) that satisfy everything, after the
    /// cursor, in sort order. `cell` says what a walk's cell holds (its `ranges` are the cell's range); a cell's
    /// statement is prepared once for the walk's next cells.
    private func keys(_ db: any SQLExecutor, ranges: [GeohashRange]?, limit: Int, cell: CellCandidates? = nil) async throws -> [Key] {
        var hits: (condition: SQLStatement, count: Int)?
        if case .hits(let condition, let count) = cell {
            guard count > 0 else { return [] }
            hits = (condition, count)
        }
        let clause = search.keyword.map { index.keyword($0, sort: search.sort, withinRanges: ranges != nil) }
        let confirmedHere = search.keyword.flatMap { keyword in
            keyword.needsVerification && (hits != nil || clause?.verification == nil) ? keyword : nil
        }
        var keys: [Key] = []
        var position = startPosition
        while keys.count < limit {
            // A cell's hits are read in one statement: all of them when some may be left out in Swift.
            let filtersHere = confirmedHere != nil || !blockedWriters.isEmpty
            let batch = filtersHere ? hits?.count ?? max(limit - keys.count, confirmedHere == nil ? 0 : Self.verificationBatch) : limit - keys.count
            guard var statement = statement(ranges: ranges, limit: batch, after: position, keyword: clause, hits: hits?.condition,
                                            withText: confirmedHere != nil)
            else { break }
            statement.isCached = cell != nil
            let fetched = try await db.rows(statement).map { try Key(row: $0, sort: search.sort) }
            keys += fetched.filter { key in
                !(key.writerId.map(blockedWriters.contains) ?? false) && confirmedHere.map { $0.matches(key.text ?? "") } ?? true
            }
            guard hits == nil, fetched.count == batch, let last = fetched.last else { break }
            position = Position(value: last.value, id: last.id)
        }
        return Array(keys.prefix(limit))
    }

    /// The position the page request continues after, if any.
    private var startPosition: Position? {
        guard let after = page.after, let value = after.values.first, let id = after.values.last?.string else { return nil }
        return Position(value: value, id: id)
    }

    /// The statement of the first step (the first cell, for nearest-first searches); nil when nothing can match.
    func firstStatement() -> SQLStatement? {
        var ranges = coveringRanges
        if search.sort == .distance, let circle = search.circle {
            ranges = [GeohashRange(cell: Geohash(circle.center, precision: 6))]
        }
        let clause = search.keyword.map { index.keyword($0, sort: search.sort, withinRanges: ranges != nil) }
        return statement(ranges: ranges, limit: page.limit + 1, after: nil, keyword: clause)
    }

    /// One statement: candidates in `ranges` (all listings when nil) that satisfy everything, after `position`, in
    /// sort order; nil when nothing can match. `hits` replaces the keyword's index condition (a cell's hits, found
    /// already); `withText` selects name and description instead of confirming a keyword in SQL.
    private func statement(
        ranges: [GeohashRange]?, limit: Int, after position: Position?, keyword clause: KeywordClause?,
        hits: SQLStatement? = nil, withText: Bool = false
    ) -> SQLStatement? {
        var columns: SQLStatement = blockedWriters.isEmpty ? "c.id, c.created_at" : "c.id, c.created_at, c.writer_id"
        var conditions = filterConditions
        var outer: [SQLStatement] = []
        var join: SQLStatement = ""
        var hint = ""
        if let ranges {
            if ranges.isEmpty { return nil }
            conditions.append("(\(joined(ranges.map { "(c.geohash >= \($0.lower) AND c.geohash < \($0.upper))" }, " OR ")))")
            hint = index.rangeHint(sort: search.sort, keyword: search.keyword)
        }
        if let box = search.box {
            conditions.append("c.lat BETWEEN \(box.minLat) AND \(box.maxLat)")
            conditions.append(box.crossesAntimeridian ? "(c.lon >= \(box.minLon) OR c.lon <= \(box.maxLon))" : "c.lon BETWEEN \(box.minLon) AND \(box.maxLon)")
        }
        if let circle = search.circle {
            let distance = dialect.distance(lat1: "c.lat", lon1: "c.lon", lat2: "\(circle.center.lat)", lon2: "\(circle.center.lon)")
            columns.append(", \(distance) AS distance")
            outer.append("k.distance <= \(circle.radius)")
        }
        if let keyword = search.keyword {
            if let hits {
                conditions.append(hits)
                hint = ""
            } else if let clause {
                join = clause.join
                conditions.append(clause.condition)
                if search.sort == .relevance, let rank = clause.rank { columns.append(", \(rank) AS rank") }
                if !withText, keyword.needsVerification, let verification = clause.verification { conditions.append(verification) }
            }
            if withText { columns.append(", c.name, c.description") }
        }
        // Keyset: (key, id) ascending for distance and relevance, descending for recent.
        let (key, ascending): (String, Bool) = switch search.sort {
        case .distance: ("k.distance", true)
        case .relevance: ("k.rank", true)
        case .recent: ("k.created_at", false)
        }
        let direction = ascending ? "" : " DESC"
        if let position {
            if case .string = position.value {
                // Numbers sort before text: nothing follows a text key ascending, everything descending.
                if ascending { return nil }
            } else {
                let value: SQLStatement = search.sort == .recent ? "\(position.value.int ?? 0)" : "\(position.value.double ?? 0)"
                let beyond = ascending ? ">" : "<"
                outer.append("""
                    (\(raw: key) \(raw: beyond) \(value) OR (\(raw: key) = \(value) AND k.id \(raw: dialect.byteOrder) \(raw: beyond) \(position.id)))
                    """)
            }
        }
        return """
            SELECT * FROM (SELECT \(columns) FROM classes c \(raw: hint) \(join)
                WHERE \(joined(["c.deleted_at IS NULL"] + conditions, " AND "))) k
            WHERE \(outer.isEmpty ? "1 = 1" : joined(outer, " AND "))
            ORDER BY \(raw: key)\(raw: direction), k.id \(raw: dialect.byteOrder)\(raw: direction) LIMIT \(limit)
            """
    }

    /// The conditions of the search's plain column filters (status, type, district, masks, price).
    private var filterConditions: [SQLStatement] {
        var conditions: [SQLStatement] = [ClassModeration.visible(at: Date())]
        if let status = search.status { conditions.append("c.status = \(status.rawValue)") }
        if let type = search.type { conditions.append("c.type = \(type.rawValue)") }
        if let district = search.keywordLocation { conditions.append("c.keyword_location = \(district)") }
        for (column, mask) in [("subjects_mask", search.subjects.map(BitMask.of)), ("targets_mask", search.targets.map(BitMask.of)),
                               ("days_mask", search.days.map(BitMask.of))] {
            guard let mask else { continue }
            conditions.append("(c.\(raw: column) & \(mask)) <> 0")
        }
        if let minPrice = search.minPrice { conditions.append("c.price >= \(minPrice)") }
        if let maxPrice = search.maxPrice { conditions.append("c.price <= \(maxPrice)") }
        return conditions
    }

    /// The statements joined by `separator`.
    private func joined(_ statements: [SQLStatement], _ separator: String) -> SQLStatement {
        var result: SQLStatement = ""
        for (position, statement) in statements.enumerated() {
            if position > 0 { result.append(raw: separator) }
            result.append(statement)
        }
        return result
    }
}
