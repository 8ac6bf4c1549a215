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

    /// The read that sorts the hits (``newest(_:nameOnly:district:columns:conditions:after:limit:_:)`` may walk
    /// instead).
    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement {
        newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions, after: position, limit: limit,
                        walkingAtMost: nil)
    }

    /// Asks the planner how many listings the read may find (``HitEstimate``, one `EXPLAIN`, no read), then reads the
    /// page the cheaper way: sorting the hits when few enough (``HitEstimate/favoursSorting(limit:)``), else walking
    /// listings newest first (`classes_by_recent`, or `classes_by_district` in a district) and checking each one's
    /// vector. The walk turns bitmap scans off for its statement (the planner, which multiplies the frequencies of
    /// correlated tokens, would otherwise sort the hits it underestimates) and passes ``HitEstimate/longestWalk``
    /// listings at most: when it fills no page there, the estimate was wrong (a prefix the planner has no statistics
    /// for is guessed at 0.5 % of the listings) and the hits are sorted after all.
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, _ db: any SQLExecutor
    ) async throws -> [SQLRow] {
        let estimate = try await HitEstimate.read(keyword, nameOnly: nameOnly, excludingNames: Self.excludesNameHits(keyword, nameOnly: nameOnly),
                                                  district: district, db)
        let statement = { (walk: Int?) in
            newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions, after: position,
                            limit: limit, walkingAtMost: walk)
        }
        if !estimate.favoursSorting(limit: limit) {
            try await db.execute("SET LOCAL enable_bitmapscan = off")
            let rows = try await db.rows(statement(HitEstimate.longestWalk))
            try await db.execute("SET LOCAL enable_bitmapscan = on")
            if rows.count >= limit { return rows }
        }
        return try await db.rows(statement(nil))
    }

    /// The keyword condition of a relevance read: the name's tokens hold the keyword's (and the district's lexeme)
    /// with `nameOnly`; else all of them do, and not the name's when the keyword needs no verification (the name tier
    /// has those).
    private static func keywordCondition(_ keyword: SearchQuery, nameOnly: Bool, district: String?) -> SQLStatement {
        let query = relevanceQuery(keyword, district: district)
        if nameOnly { return "c.name_search @@ \(query)::tsquery" }
        guard excludesNameHits(keyword, nameOnly: nameOnly) else { return "c.search @@ \(query)::tsquery" }
        return "c.search @@ \(query)::tsquery AND NOT c.name_search @@ \(keyword.tsQuery)::tsquery"
    }

    /// Whether a relevance read leaves out the listings whose name's tokens hold the keyword's: outside the name
    /// tier, for a keyword needing no verification (the name tier has them all).
    private static func excludesNameHits(_ keyword: SearchQuery, nameOnly: Bool) -> Bool {
        !nameOnly && !keyword.needsVerification
    }

    /// A relevance read. Without `walkingAtMost`, it sorts the hits: the GIN index's hits are read first, fenced
    /// (`OFFSET 0`) so that the planner combines no other index with them (a district's B-tree bitmap cost more than
    /// the hits), then filtered and sorted, in an order no index yields (`NULLS LAST`, which `classes_by_recent` does
    /// not hold; `created_at` is never NULL). With it, it checks that many listings at most, newest first, for hits.
    private func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, walkingAtMost walk: Int?
    ) -> SQLStatement {
        let keywordCondition = Self.keywordCondition(keyword, nameOnly: nameOnly, district: district)
        var listingConditions: SQLStatement = "c.deleted_at IS NULL"
        for condition in conditions + (position.map { [$0.listingsAfter(.postgres)] } ?? []) {
            listingConditions.append(" AND \(condition)")
        }
        let order = "c.created_at DESC\(walk == nil ? " NULLS LAST" : ""), c.id COLLATE \"C\" DESC"
        let (listings, condition): (SQLStatement, SQLStatement) = if let walk {
            ("(SELECT * FROM classes c WHERE \(listingConditions) ORDER BY \(raw: order) LIMIT \(walk)) c", keywordCondition)
        } else {
            ("(SELECT * FROM classes c WHERE \(keywordCondition) OFFSET 0) c", listingConditions)
        }
        return """
            SELECT \(columns), c.name_search @@ \(keyword.tsQuery)::tsquery AS name_hit FROM \(listings)
            WHERE \(condition) ORDER BY \(raw: order) LIMIT \(limit)
            """
    }
}

/// How many listings a relevance read on PostgreSQL may find, at most, from the planner's statistics: an upper bound
/// rather than the planner's own estimate of the whole condition, which multiplies the frequencies of the keyword's
/// tokens as if they were independent. They are not: the bigrams of one word, or the initial-consonant tokens of
/// `ㅇㅇㅎㅎ`, occur together, and the planner estimated 2,087 listings for 42,651 (sorting them took 700 ms).
/// Each token's own frequency is well estimated (`most_common_elems`), so the bound is the least frequent token's;
/// a district, independent of the words, scales it by its share of the listings.
struct HitEstimate: Equatable {
    /// The listings whose vector holds the keyword's tokens (and the district's), at most: what sorting reads.
    let candidates: Double
    /// The listings the read is after, about: the candidates but for those whose name holds the keyword when the name
    /// tier has them already. A walk passes `listings / hits` listings for each one it finds.
    let hits: Double
    /// The listings in all.
    let listings: Double
    /// Whether the planner had no statistics for the keyword: its bound is at the planner's floor, the estimate of a
    /// token rarer than any it keeps (0.5 % of the listings at most), or of a prefix matching none it keeps.
    var isFloor = false

    /// Sorting a hit costs about this many times walking past a listing: measured on 1,000,000 listings, sorting the
    /// 7,148 hits of `toeic` read their rows at random (95 ms, 13 µs a hit) while walking `classes_by_recent` to 21
    /// of them read about 3,000 consecutive listings (5.6 ms, 1.9 µs each, neighbours sharing pages).
    static let sortCostPerWalkedListing = 7.0

    /// Whether sorting the candidates reads less than walking to `limit` hits: the walk passes about
    /// `limit × listings / hits` listings, so sorting wins while `candidates × hits × cost ≤ limit × listings`: up to
    /// about 3,000 hits for 64 of them in 1,000,000 listings, and always when there are none to walk to.
    /// A keyword at the planner's floor (``isFloor``) is sorted too: it may be held by no listing at all (a
    /// Latin prefix), and a walk would pass them all.
    func favoursSorting(limit: Int) -> Bool {
        isFloor || candidates * hits * Self.sortCostPerWalkedListing <= Double(limit) * listings
    }

    /// The most listings a walk passes before giving up on the estimate (about 20 ms): a walk stops at its page's
    /// end, so the limit costs only when the estimate was wrong, and the estimate, an upper bound, may well be three
    /// times the hits (`피아노`, whose typo-tolerant alternatives each count).
    static let longestWalk = 8_000

    /// The bound on the listings holding `keyword`'s tokens, from each token requirement's estimate (`tokenHits`):
    /// for each of the keyword's conditions, the sum over its alternatives of their least frequent token; the least
    /// of those.
    static func bound(_ keyword: SearchQuery, tokenHits: (SearchQuery.TokenRequirement) -> Double) -> Double {
        keyword.conditions.map { condition in
            condition.alternatives.reduce(0) { sum, alternative in sum + (alternative.map(tokenHits).min() ?? 0) }
        }.min() ?? 0
    }

    /// Reads the planner's estimates in one `EXPLAIN` of a `UNION ALL`: for the column the read selects on
    /// (`name_search` with `nameOnly`, else `search`), and again for `name_search` when the read leaves the name's
    /// hits out (`excludingNames`), a branch per token of `keyword` and one per floor (``floorOperands``); then the
    /// district's listings if any, then all listings.
    static func read(
        _ keyword: SearchQuery, nameOnly: Bool, excludingNames: Bool, district: String?, _ db: any SQLExecutor
    ) async throws -> HitEstimate {
        let tokens = Array(Set(keyword.tokenRequirements)).sorted { $0.tsQuery < $1.tsQuery }
        let columns = (nameOnly ? ["name_search"] : ["search"]) + (excludingNames ? ["name_search"] : [])
        let operands = tokens.map(\.tsQuery) + floorOperands
        var branches: [SQLStatement] = columns.flatMap { column in
            operands.map { "SELECT 1 FROM classes WHERE \(raw: column) @@ \($0)::tsquery" as SQLStatement }
        }
        if let district { branches.append("SELECT 1 FROM classes WHERE keyword_location = \(district)") }
        branches.append("SELECT 1 FROM classes")
        var statement: SQLStatement = "EXPLAIN "
        for (index, branch) in branches.enumerated() {
            statement.append(index == 0 ? branch : " UNION ALL \(branch)")
        }
        let plan: [String] = try await db.rows(statement).map { try $0["QUERY PLAN"] }
        let rows = branchRows(plan)
        guard rows.count == branches.count, let listings = rows.last else {
            // Unexpected plan shape: claim no hits, so the read sorts them; that costs as many as there are, where a
            // walk through a rare keyword could read the whole table.
            return HitEstimate(candidates: 0, hits: 0, listings: 1)
        }
        let share = district == nil || listings == 0 ? 1 : min(rows[columns.count * operands.count] / listings, 1)
        let perColumn = columns.indices.map { column in
            let estimates = Array(rows[(column * operands.count)..<((column + 1) * operands.count)])
            let byToken = Dictionary(uniqueKeysWithValues: zip(tokens, estimates))
            let bound = bound(keyword, tokenHits: { byToken[$0] ?? 0 })
            return (hits: bound * share, isFloor: bound <= estimates.suffix(floorOperands.count).max()! * 1.01)
        }
        let excluded = excludingNames ? perColumn[1].hits : 0
        var estimate = HitEstimate(candidates: perColumn[0].hits, hits: max(perColumn[0].hits - excluded, 0), listings: listings)
        estimate.isFloor = perColumn[0].isFloor
        return estimate
    }

    /// Operands no listing holds, whose estimates are the planner's floors: a lexeme (`@`, which cell and district
    /// lexemes only start) and a prefix (`~`, which no lexeme starts); the planner estimates prefixes apart.
    private static let floorOperands = ["'@'", "'~':*"]

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
