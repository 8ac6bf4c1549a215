import ClassTodayCore
import Foundation

/// Class keywords in PostgreSQL: `classes.search`, a `tsvector` of the exact ``ClassSearchDocument`` tokens (one
/// lexeme each, no parser or dictionary) and of its geohash cells (``cellLexeme(_:)``), and `classes.name_search`, the
/// tokens of the name alone, each under a GIN index. A keyword within a cell is then one GIN intersection, as in
/// SQLite's FTS5 table.
struct TSVectorClassIndex: ClassSearchIndex {
    /// The lexeme of a cell token (``ClassSearchDocument/cells(geohash:district:)``): `@`, which no search token holds,
    /// then the token (migration 0012 spells it the same way).
    static func cellLexeme(_ token: String) -> String {
        "@" + token
    }

    /// A tsquery text requiring the cell token `token`.
    static func cellQuery(_ token: String) -> String {
        "'\(cellLexeme(token))'"
    }

    /// The lexeme of a listing's district (`keywordLocation`) in both vectors: `@@`, which starts no other lexeme, then
    /// the district as written (migration 0013 spells it the same way), so that a keyword within a district is one
    /// GIN intersection, as in SQLite's `cells` column.
    static func districtLexeme(_ district: String) -> String {
        "@@" + district
    }

    /// The tsquery text of the keyword's, and the district's lexeme when there is one: a relevance read's, and a walk
    /// cell's beside the cell's lexeme.
    static func query(_ keyword: SearchQuery, district: String?) -> String {
        guard let district else { return keyword.tsQuery }
        return "(\(keyword.tsQuery)) & \(SearchQuery.TokenRequirement(token: districtLexeme(district), isPrefix: false).tsQuery)"
    }

    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)? { nil }

    func index(_ listing: ClassListing, tokens: ClassSearchDocument.Tokens, _ db: any SQLExecutor) async throws {
        let geohash = listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
        let cells = ClassSearchDocument.cells(geohash: geohash, district: nil).split(separator: " ").map { Self.cellLexeme(String($0)) }
        let allTokens = ([tokens.all] + cells).joined(separator: " ")
        // The district is one lexeme, spaces and all, so it joins the vectors apart from the space-separated tokens.
        let district: SQLStatement = listing.keywordLocation.flatMap { $0.isEmpty ? nil : "ARRAY[\(Self.districtLexeme($0))]" } ?? "ARRAY[]::text[]"
        try await db.execute("""
            UPDATE classes SET search = array_to_tsvector(array_remove(string_to_array(\(allTokens), ' '), '') || \(district)),
                name_search = array_to_tsvector(array_remove(string_to_array(\(tokens.name), ' '), '') || \(district))
            WHERE id = \(listing.id)
            """)
    }

    func remove(classId: String, _ db: any SQLExecutor) async throws {
        try await db.execute("UPDATE classes SET search = ''::tsvector, name_search = ''::tsvector WHERE id = \(classId)")
    }

    func keyword(_ keyword: SearchQuery, withinRanges: Bool) -> KeywordClause {
        KeywordClause(condition: "c.search @@ \(keyword.tsQuery)::tsquery")
    }

    /// The keyword's hits in the cell from one GIN intersection, read whole: a hit found again by its id cost a
    /// primary key read per hit (`바이올린` within 50 km, 2-3 ms a cell, half of it those reads).
    func hits(in cell: Geohash, keyword: SearchQuery, district: String?) -> CellCandidates? {
        ClassSearchDocument.cellToken(cell).map { token in
            let query = "(\(Self.query(keyword, district: district))) & \(Self.cellQuery(token))"
            return .hitRows(where: "c.search @@ \(query)::tsquery")
        }
    }

    /// From the planner's statistics (``HitEstimate``, one `EXPLAIN`), as a GIN index counts no hit without reading
    /// its row: false when the keyword's rarest tokens are held by more than `limit` listings, whose read the caller
    /// would make in vain (`ㅇㅇㅇㅇㅇㅇ`, whose pair `ㅇㅇ` most listings hold, read 8,193 rows in 160 ms); true when they
    /// are held by fewer, or by too few for the statistics to tell.
    func mayHoldFewHits(of keyword: SearchQuery, atMost limit: Int, _ db: any SQLExecutor) async throws -> Bool {
        let estimate = try await HitEstimate.read(keyword, nameOnly: false, excludingNames: false, district: nil, db)
        return estimate.isFloor || estimate.candidates <= Double(limit)
    }

    /// Read from PostgreSQL's statistics of `classes.search` (migration 0018): a token among its most common lexemes is
    /// counted as its share of ANALYZE's sample times the listings, any other keyword token as the least share among
    /// them, which it holds less of. A cell's lexeme (``cellLexeme(_:)``) is counted only when among them. Asked for
    /// ``everyListing``, the count of every listing, it counts every cell's lexeme among them too, which
    /// ``estimatedCandidates(of:in:_:)`` then finds kept. Empty before the table is first analyzed.
    func counts(of tokens: [String], upTo limit: Int, _ db: any SQLExecutor) async throws -> [String: Int] {
        // A lexeme's share follows its position; past the lexemes come the least and the greatest share (which
        // `unnest` pairs with no lexeme).
        let cells: SQLStatement = !tokens.contains(Self.everyListing) ? "" : """
            UNION ALL
                  SELECT u.lexeme, u.share FROM s, unnest(s.lexemes, s.shares) u(lexeme, share)
                  WHERE u.lexeme LIKE '@%' AND u.lexeme NOT LIKE '@@%'
            """
        let rows = try await db.rows("""
            WITH s AS (SELECT most_common_elems::text::text[] AS lexemes, most_common_elem_freqs AS shares FROM pg_stats
                       WHERE schemaname = current_schema() AND tablename = 'classes' AND attname = 'search')
            SELECT k.token, LEAST(ROUND(k.share * GREATEST(c.reltuples, 0)), \(limit))::bigint AS listings
            FROM (SELECT t.value AS token, CASE WHEN t.value = \(Self.everyListing) THEN 1
                      ELSE COALESCE(s.shares[array_position(s.lexemes, t.value)],
                                    CASE WHEN t.value NOT LIKE '@%' THEN s.shares[cardinality(s.lexemes) + 1] END) END AS share
                  FROM s CROSS JOIN \(db.dialect.list(tokens)) t WHERE s.lexemes IS NOT NULL
                  \(cells)) k
            JOIN pg_class c ON c.oid = 'classes'::regclass
            WHERE k.share IS NOT NULL
            """)
        return Dictionary(try rows.map { (try $0["token"], try $0["listings"]) }) { first, _ in first }
    }

    /// The pseudo-lexeme ``counts(of:upTo:_:)`` counts every listing by: the cells' mark alone, which no listing holds.
    static let everyListing = "@"

    /// Unbounded: the statistics cost the same whatever the count, and a cell's share needs every listing counted.
    var countedListings: Int { .max }

    /// From the statistics (``counts(of:upTo:_:)``), for a cell of the precisions the vectors hold whose lexeme is among
    /// the most common: `jlpt` (6,073 listings of a million) in `@wyd`, a cell of 61 % of them, is about 3,700
    /// candidates, where the GIN intersection saying the cell is crowded took 8 ms. A cell whose lexeme is rarer has
    /// no count, since the least share is no bound of it. The cells are counted all at once with every listing, so
    /// that a walk's cells cost no statement of their own.
    func estimatedCandidates(of keyword: SearchQuery, in cell: Geohash, _ db: any SQLExecutor) async throws -> Double? {
        guard cell.precision <= ClassSearchDocument.cellPrecisions.upperBound, let token = ClassSearchDocument.cellToken(cell),
              let tokenCounts = db.tokenCounts
        else { return nil }
        let counts = tokenCounts.counts(of: keyword.tokenRequirements.map(\.token) + [Self.everyListing])
        // Counted with every listing if the statistics keep it; not asked about otherwise.
        let lexeme = Self.cellLexeme(token)
        guard let inCell = tokenCounts.kept([lexeme])[lexeme],
              let listings = counts[Self.everyListing], listings > 0, let candidates = keyword.estimatedCandidates(counts: counts)
        else { return nil }
        return Double(candidates) * Double(inCell) / Double(listings)
    }

    /// The range's listings on the geohash index, or the district's on `classes_by_district_cell`.
    func candidates(in range: GeohashRange, district: String?) -> CellCandidates {
        .range(range, district: district, from: "classes", capacity: Self.crowdedCell)
    }

    /// The most listings a cell may hold for a walk to read it rather than split it: twice SQLite's
    /// (``CellCandidates/crowdedCell``), since every statement here costs a round trip besides its run. Measured on
    /// 1,000,000 classes: circle pages' p50 7.0–7.4 ms at 128, 8.2–8.7 at 64, 8.1–14 at 512.
    static let crowdedCell = 2 * CellCandidates.crowdedCell

    func rangeHint(district: String?) -> String { "" }

    /// None: the planner reads a page by recency within an area on the recency index when the area's listings are many.
    var newestWindowHint: String? { nil }

    /// No: the planner reads an `OR` of ranges as one bitmap of index scans.
    var joinsRanges: Bool { false }

    /// The GiST index `classes_by_sphere` (migration 0016) over ``spherePoint``, a listing's point on the unit sphere in
    /// 3-D space: the straight-line distance between two such points (their chord) ascends with their great-circle
    /// distance, and the index reads the listings nearest a point first (`<->`), within the cube around it that holds
    /// the circle. The centre's point, the cube and a cursor's chord are computed here, so that a run calls no SQL
    /// function: `earthdistance`'s (`ll_to_earth`, `earth_box`), which migration 0015's index used, took a quarter of
    /// the page's time in PostgreSQL. The centre is a sub-select (an InitPlan), which the order reads for every listing.
    func nearestOrder(within circle: ClassSearch.Circle) -> NearestOrder? {
        let center = Self.unitVector(circle.center)
        let nearness: SQLStatement = "(\(raw: Self.spherePoint) <-> (SELECT cube(ARRAY[\(center.x), \(center.y), \(center.z)])))"
        let half = Self.chord(circle.radius + 1)
        let box: SQLStatement = """
            cube(ARRAY[\(center.x - half), \(center.y - half), \(center.z - half)], ARRAY[\(center.x + half), \(center.y + half), \(center.z + half)])
            """
        return NearestOrder(nearness: nearness, within: "c.lat IS NOT NULL AND \(box) @> \(raw: Self.spherePoint)",
                            atLeast: { distance in "\(nearness) >= \(Self.chord(distance))" }, checksPrices: true)
    }

    /// A keyword that needs no verification, held by so many listings that `wanted` of them lie on average among the
    /// nearest third of ``nearestReach`` listings (``HitEstimate``, one `EXPLAIN`), is read in the sphere index's order,
    /// each listing's vector checked: finding a cell crowded with a word in 40 % of the listings took one GIN
    /// intersection of 2–7 ms, as it decodes most of the word's posting tree for the cell's listings, spread over the
    /// table; the 70 nearest listings were checked in 3–6 ms.
    func nearestReach(of keyword: SearchQuery, wanted: Int, _ db: any SQLExecutor) async throws -> Int? {
        guard !keyword.needsVerification else { return nil }
        let estimate = try await HitEstimate.read(keyword, nameOnly: false, excludingNames: false, district: nil, db)
        guard !estimate.isFloor, estimate.candidates > 0 else { return nil }
        let expected = Double(wanted) * estimate.listings / estimate.candidates
        return 3 * expected <= Double(Self.nearestReach) ? Self.nearestReach : nil
    }

    /// The most listings a nearest-first read of a common keyword checks (``nearestReach(of:wanted:_:)``) before the
    /// walk reads the page instead: about 10 ms of vectors checked, at 6–27 µs each.
    static let nearestReach = 1_024

    /// The expression `classes_by_sphere` indexes, over `classes c`: the listing's point on the unit sphere. A statement
    /// must write it exactly so for PostgreSQL to read the index, and hold only listings with a place (`cube` refuses
    /// an array holding NULL), as the index does.
    static let spherePoint = "cube(ARRAY[cos(radians(c.lat)) * cos(radians(c.lon)), cos(radians(c.lat)) * sin(radians(c.lon)), sin(radians(c.lat))])"

    /// `point` on the unit sphere, as ``spherePoint`` places a listing.
    private static func unitVector(_ point: GeoPoint) -> (x: Double, y: Double, z: Double) {
        let (lat, lon) = (point.lat * .pi / 180, point.lon * .pi / 180)
        return (cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
    }

    /// The chord on the unit sphere of a great-circle distance of `meters` (``Haversine/earthRadiusMeters``).
    private static func chord(_ meters: Double) -> Double {
        2 * sin(min(max(meters, 0) / Haversine.earthRadiusMeters, .pi) / 2)
    }

    /// The walk's cell statements are prepared (``SQLStatement/isRepeated``) and keep one plan for the rest of the
    /// read: planning a cell's statement for its values took longer than running it. The page's listings, read last,
    /// are a prepared statement too (``ClassViewQuery``), whose one plan fits every page.
    func prepareWalk(_ db: any SQLExecutor) async throws {
        try await db.execute("SET LOCAL plan_cache_mode = force_generic_plan")
    }

    /// Runs `body` with the setting `name` at `value` for its statements, then at `restored` for the rest of the
    /// caller's transaction.
    private static func setting<Result>(
        _ name: String, to value: String, restoring restored: String, _ db: any SQLExecutor, _ body: () async throws -> Result
    ) async throws -> Result {
        try await db.execute("SET LOCAL \(raw: name) = \(raw: value)")
        let result = try await body()
        try await db.execute("SET LOCAL \(raw: name) = \(raw: restored)")
        return result
    }

    /// The read that sorts the hits (``newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)`` may walk or
    /// read a window of the newest listings instead).
    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement {
        newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions, after: position, limit: limit,
                        reading: .sorted)
    }

    /// Asks the planner how many listings the read may find (``HitEstimate``, one `EXPLAIN`, no read), then reads the
    /// page the cheapest of three ways (``HitEstimate/strategy(limit:)``):
    /// - sorting the hits, when they are few;
    /// - walking listings newest first (`classes_by_recent`, or `classes_by_district` in a district) and checking each
    ///   one's vector, when a page's hits are among the few newest: bitmap scans are off for its statement (the
    ///   planner, which multiplies the frequencies of correlated tokens, would otherwise sort the hits it
    ///   underestimates), and it passes ``HitEstimate/longestWalk`` listings at most;
    /// - in between, reading the hits among a window of the newest listings: `created_at` is a column of both GIN
    ///   indexes (migration 0014), so that is one index scan; a window holding fewer than `limit` hits is widened
    ///   fourfold, up to ``HitEstimate/widestWindow``.
    /// A walk or window holding `enough` hits returns them, `limit` at most: every hit it did not reach is older than
    /// every hit it found, and the caller may read on from the last. One holding fewer leaves the hits to be sorted
    /// after all.
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, enough: Int, _ db: any SQLExecutor
    ) async throws -> NewestHits {
        let estimate = try await HitEstimate.read(keyword, nameOnly: nameOnly, excludingNames: Self.excludesNameHits(keyword, nameOnly: nameOnly),
                                                  district: district, db)
        let statement = { (read: RelevanceRead) in
            newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions, after: position,
                            limit: limit, reading: read)
        }
        switch estimate.strategy(limit: limit) {
        case .sorting:
            break
        case .walking:
            let rows = try await Self.setting("enable_bitmapscan", to: "off", restoring: "on", db) {
                try await db.rows(statement(.walking(atMost: HitEstimate.longestWalk)))
            }
            if rows.count >= enough { return NewestHits(rows: rows, mayContinue: true) }
        case .window(var window):
            while window <= HitEstimate.widestWindow {
                let rows = try await db.rows(statement(.window(window)))
                if rows.count >= enough { return NewestHits(rows: rows, mayContinue: true) }
                window *= 4
            }
        }
        let rows = try await db.rows(statement(.sorted))
        return NewestHits(rows: rows, mayContinue: rows.count >= limit)
    }

    /// How one relevance statement reads its hits (``newestStatement(_:nameOnly:district:columns:conditions:after:limit:reading:)``).
    private enum RelevanceRead {
        /// All of them, sorted.
        case sorted
        /// Those among `atMost` listings, newest first.
        case walking(atMost: Int)
        /// Those created since the listing this many places from the newest (after the position, if any).
        case window(Int)
    }

    /// The keyword condition of a relevance read: the name's tokens hold the keyword's (and the district's lexeme)
    /// with `nameOnly`; else all of them do, and not the name's when the keyword needs no verification (the name tier
    /// has those).
    private static func keywordCondition(_ keyword: SearchQuery, nameOnly: Bool, district: String?) -> SQLStatement {
        let query = Self.query(keyword, district: district)
        if nameOnly { return "c.name_search @@ \(query)::tsquery" }
        guard excludesNameHits(keyword, nameOnly: nameOnly) else { return "c.search @@ \(query)::tsquery" }
        return "c.search @@ \(query)::tsquery AND NOT c.name_search @@ \(keyword.tsQuery)::tsquery"
    }

    /// Whether a relevance read leaves out the listings whose name's tokens hold the keyword's: outside the name
    /// tier, for a keyword needing no verification (the name tier has them all).
    private static func excludesNameHits(_ keyword: SearchQuery, nameOnly: Bool) -> Bool {
        !nameOnly && !keyword.needsVerification
    }

    /// A relevance read (``RelevanceRead``).
    /// - Sorted: the GIN index's hits are read first, fenced (`OFFSET 0`) so that the planner combines no other index
    ///   with them (a district's B-tree bitmap cost more than the hits), then filtered and sorted.
    /// - Walking: that many listings at most, newest first, are checked for hits.
    /// - Window: only the hits created since the window's newest listing are read (of all listings, a district's
    ///   included, since the GIN scan's range spans them all; after the position, or from it when listings share its
    ///   millisecond, which only narrows the window), in the same GIN index scan as the keyword.
    /// The sorted and window reads order by what no index yields (`NULLS LAST`, which `classes_by_recent` does not
    /// hold; `created_at` is never NULL), so that the planner does not walk instead.
    private func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, reading read: RelevanceRead
    ) -> SQLStatement {
        let keywordCondition = Self.keywordCondition(keyword, nameOnly: nameOnly, district: district)
        var listingConditions: SQLStatement = "c.deleted_at IS NULL"
        for condition in conditions {
            listingConditions.append(" AND \(condition)")
        }
        if let position {
            // A window writes it as a row comparison, which no GIN index serves: `created_at < …` alone would be a
            // second range of the GIN scan, over every older listing.
            let after: SQLStatement = if case .window = read {
                "(c.created_at, c.id COLLATE \"C\") < (\(position.createdAt), \(position.id))"
            } else {
                position.listingsAfter(.postgres)
            }
            listingConditions.append(" AND \(after)")
        }
        // A walk reads `classes_by_recent` in its order; the other reads order by what no index yields.
        let order = if case .walking = read { "c.created_at DESC, c.id COLLATE \"C\" DESC" } else { "c.created_at DESC NULLS LAST, c.id COLLATE \"C\" DESC" }
        let listings: SQLStatement
        switch read {
        case .sorted:
            listings = "(SELECT * FROM classes c WHERE \(keywordCondition) OFFSET 0) c WHERE \(listingConditions)"
        case .walking(let most):
            listings = "(SELECT * FROM classes c WHERE \(listingConditions) ORDER BY \(raw: order) LIMIT \(most)) c WHERE \(keywordCondition)"
        case .window(let window):
            let newest: SQLStatement = position.map { "c.deleted_at IS NULL AND c.created_at <= \($0.createdAt)" } ?? "c.deleted_at IS NULL"
            listings = """
                classes c WHERE \(keywordCondition) AND c.created_at >= COALESCE((SELECT c.created_at FROM classes c WHERE \(newest)
                    ORDER BY c.created_at DESC OFFSET \(window) LIMIT 1), \(Int64.min)) AND \(listingConditions)
                """
        }
        return """
            SELECT \(columns), c.name_search @@ \(keyword.tsQuery)::tsquery AS name_hit FROM \(listings)
            ORDER BY \(raw: order) LIMIT \(limit)
            """
    }
}
