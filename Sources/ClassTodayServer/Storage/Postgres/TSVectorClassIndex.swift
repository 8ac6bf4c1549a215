import ClassTodayCore

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

    /// The tsquery text of a relevance read: the keyword's, and the district's lexeme when there is one.
    static func relevanceQuery(_ keyword: SearchQuery, district: String?) -> String {
        guard let district else { return keyword.tsQuery }
        return "(\(keyword.tsQuery)) & \(SearchQuery.TokenRequirement(token: districtLexeme(district), isPrefix: false).tsQuery)"
    }

    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)? { nil }

    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        let geohash = listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
        let cells = ClassSearchDocument.cells(geohash: geohash, district: nil).split(separator: " ").map { Self.cellLexeme(String($0)) }
        let tokens = ([ClassSearchDocument.tokens(name: listing.name, description: listing.description)] + cells).joined(separator: " ")
        let nameTokens = ClassSearchDocument.tokens(name: listing.name, description: "")
        // The district is one lexeme, spaces and all, so it joins the vectors apart from the space-separated tokens.
        let district: SQLStatement = listing.keywordLocation.flatMap { $0.isEmpty ? nil : "ARRAY[\(Self.districtLexeme($0))]" } ?? "ARRAY[]::text[]"
        try await db.execute("""
            UPDATE classes SET search = array_to_tsvector(array_remove(string_to_array(\(tokens), ' '), '') || \(district)),
                name_search = array_to_tsvector(array_remove(string_to_array(\(nameTokens), ' '), '') || \(district))
            WHERE id = \(listing.id)
            """)
    }

    func remove(classId: String, _ db: any SQLExecutor) async throws {
        try await db.execute("UPDATE classes SET search = ''::tsvector, name_search = ''::tsvector WHERE id = \(classId)")
    }

    func keyword(_ keyword: SearchQuery, withinRanges: Bool) -> KeywordClause {
        KeywordClause(condition: "c.search @@ \(keyword.tsQuery)::tsquery")
    }

    /// With a keyword, its hits in the cell from one GIN intersection (their ids); without, the cell's listings on
    /// the geohash index.
    func candidates(in cell: Geohash, keyword: SearchQuery?) -> CellCandidates {
        if let keyword, let token = ClassSearchDocument.cellToken(cell) {
            let query = "(\(keyword.tsQuery)) & \(Self.cellQuery(token))"
            return .hits("SELECT id AS key FROM classes WHERE search @@ \(query)::tsquery", keyColumn: "c.id")
        }
        return .range(GeohashRange(cell: cell), from: "classes")
    }

    var rangeHint: String { "" }

    /// The walk's cell statements are prepared (``SQLStatement/isRepeated``) and keep one plan for the walk's
    /// transaction: planning a cell's statement for its values took longer than running it. The other statements of
    /// the transaction are planned for their values again afterwards.
    func walking<Result>(_ db: any SQLExecutor, _ body: () async throws -> Result) async throws -> Result {
        try await db.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        let result = try await body()
        try await db.execute("SET LOCAL plan_cache_mode = auto")
        return result
    }

    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement {
        newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions, after: position, limit: limit,
                        sortingHits: false)
    }

    /// Asks the planner how many listings the read may find (``HitEstimate``, one `EXPLAIN`, no read), then reads the
    /// page the cheaper way: sorting the hits when few enough (``HitEstimate/favoursSorting(limit:)``), else walking
    /// listings newest first (`classes_by_recent`, or `classes_by_district` in a district), checking each one's
    /// vector, and stopping at the page's end. The walk turns bitmap scans off for its statement: the planner, which
    /// multiplies the frequencies of correlated tokens, would otherwise sort the hits it underestimates.
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, _ db: any SQLExecutor
    ) async throws -> [SQLRow] {
        let estimate = try await HitEstimate.read(keyword, column: nameOnly ? "name_search" : "search", district: district, db)
        let sorting = estimate.favoursSorting(limit: limit)
        let statement = newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions, after: position,
                                        limit: limit, sortingHits: sorting)
        if sorting { return try await db.rows(statement) }
        try await db.execute("SET LOCAL enable_bitmapscan = off")
        let rows = try await db.rows(statement)
        try await db.execute("SET LOCAL enable_bitmapscan = on")
        return rows
    }

    /// The keyword condition of a relevance read: the name's tokens hold the keyword's (and the district's lexeme)
    /// with `nameOnly`; else all of them do, and not the name's when the keyword needs no verification (the name tier
    /// has those).
    private static func keywordCondition(_ keyword: SearchQuery, nameOnly: Bool, district: String?) -> SQLStatement {
        let query = relevanceQuery(keyword, district: district)
        if nameOnly { return "c.name_search @@ \(query)::tsquery" }
        if keyword.needsVerification { return "c.search @@ \(query)::tsquery" }
        return "c.search @@ \(query)::tsquery AND NOT c.name_search @@ \(keyword.tsQuery)::tsquery"
    }

    /// A relevance read; with `sortingHits`, ordered so that no index yields the order (`NULLS LAST`, which
    /// `classes_by_recent` does not hold; `created_at` is never NULL): the planner then reads the GIN index's hits and
    /// sorts them.
    private func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, sortingHits: Bool
    ) -> SQLStatement {
        var statement: SQLStatement = """
            SELECT \(columns), c.name_search @@ \(keyword.tsQuery)::tsquery AS name_hit FROM classes c
            WHERE \(Self.keywordCondition(keyword, nameOnly: nameOnly, district: district)) AND c.deleted_at IS NULL
            """
        for condition in conditions + (position.map { [$0.listingsAfter(.postgres)] } ?? []) {
            statement.append(" AND \(condition)")
        }
        statement.append(" ORDER BY c.created_at DESC\(raw: sortingHits ? " NULLS LAST" : ""), c.id COLLATE \"C\" DESC LIMIT \(limit)")
        return statement
    }
}

/// How many listings a relevance read on PostgreSQL may find, at most, from the planner's statistics: an upper bound
/// rather than the planner's own estimate of the whole condition, which multiplies the frequencies of the keyword's
/// tokens as if they were independent. They are not: the bigrams of one word, or the initial-consonant tokens of
/// `ㅇㅇㅎㅎ`, occur together, and the planner estimated 2,087 listings for 42,651 (sorting them took 700 ms).
/// Each token's own frequency is well estimated (`most_common_elems`), so the bound is the least frequent token's;
/// a district, independent of the words, scales it by its share of the listings.
struct HitEstimate: Equatable {
    /// At most this many listings hold the keyword's tokens (and are in the district).
    let hits: Double
    /// The listings in all.
    let listings: Double

    /// Sorting a hit costs about this many times walking past a listing: measured on 1,000,000 listings, sorting the
    /// 7,148 hits of `toeic` read their rows at random (95 ms, 13 µs a hit) while walking `classes_by_recent` to 21
    /// of them read about 3,000 consecutive listings (5.6 ms, 1.9 µs each, neighbours sharing pages).
    static let sortCostPerWalkedListing = 7.0

    /// Whether sorting the hits reads less than walking to `limit` of them: the walk passes about
    /// `limit × listings / hits` listings, so sorting wins while `hits² × cost ≤ limit × listings`, up to about
    /// 3,000 hits for 64 of them in 1,000,000 listings.
    func favoursSorting(limit: Int) -> Bool {
        hits * hits * Self.sortCostPerWalkedListing <= Double(limit) * listings
    }

    /// The bound for `keyword` from the planner's per-token estimates: for each of the keyword's conditions, the
    /// sum over its alternatives of their least frequent token; the least of those; scaled by the district's share.
    /// `tokenHits` gives each token requirement's estimate; `districtHits` the district's listings, if any.
    init(_ keyword: SearchQuery, tokenHits: (SearchQuery.TokenRequirement) -> Double, districtHits: Double?, listings: Double) {
        let keywordHits = keyword.conditions.map { condition in
            condition.alternatives.reduce(0) { sum, alternative in sum + (alternative.map(tokenHits).min() ?? 0) }
        }.min() ?? 0
        let share = districtHits.map { listings > 0 ? min($0 / listings, 1) : 1 } ?? 1
        self.init(hits: keywordHits * share, listings: listings)
    }

    init(hits: Double, listings: Double) {
        self.hits = hits
        self.listings = listings
    }

    /// Reads the planner's estimates in one `EXPLAIN` of a `UNION ALL`: a branch per token of `keyword` on `column`
    /// (`search` or `name_search`), then the district's listings if any, then all listings.
    static func read(_ keyword: SearchQuery, column: String, district: String?, _ db: any SQLExecutor) async throws -> HitEstimate {
        let tokens = Array(Set(keyword.tokenRequirements)).sorted { $0.tsQuery < $1.tsQuery }
        var branches: [SQLStatement] = tokens.map { "SELECT 1 FROM classes WHERE \(raw: column) @@ \($0.tsQuery)::tsquery" }
        if let district { branches.append("SELECT 1 FROM classes WHERE keyword_location = \(district)") }
        branches.append("SELECT 1 FROM classes")
        var statement: SQLStatement = "EXPLAIN "
        for (index, branch) in branches.enumerated() {
            statement.append(index == 0 ? branch : " UNION ALL \(branch)")
        }
        let plan: [String] = try await db.rows(statement).map { try $0["QUERY PLAN"] }
        let rows = branchRows(plan)
        guard rows.count == branches.count else {
            // Unexpected plan shape: claim no hits, so the read sorts them; that costs as many as there are, where a
            // walk through a rare keyword could read the whole table.
            return HitEstimate(hits: 0, listings: 1)
        }
        let byToken = Dictionary(uniqueKeysWithValues: zip(tokens, rows))
        return HitEstimate(keyword, tokenHits: { byToken[$0] ?? 0 }, districtHits: district == nil ? nil : rows[tokens.count],
                           listings: rows[rows.count - 1])
    }

    /// The estimated rows of each branch of a `UNION ALL` plan, in order: the children of its `Append` (or
    /// `Parallel Append`) node, the lines whose `->` stands two columns right of where the node's name starts.
    static func branchRows(_ plan: [String]) -> [Double] {
        guard let append = plan.firstIndex(where: { $0.contains("Append  (") }),
              let name = plan[append].firstRange(of: /(Parallel )?Append  \(/)
        else { return [] }
        let childPrefix = String(repeating: " ", count: plan[append].distance(from: plan[append].startIndex, to: name.lowerBound) + 2) + "->  "
        return plan[(append + 1)...].filter { $0.hasPrefix(childPrefix) }.compactMap { line in
            line.firstMatch(of: /rows=(\d+)/).flatMap { Double($0.1) }
        }
    }
}
