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

    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)? { nil }

    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        let geohash = listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
        let cells = ClassSearchDocument.cells(geohash: geohash, district: nil).split(separator: " ").map { Self.cellLexeme(String($0)) }
        let tokens = ([ClassSearchDocument.tokens(name: listing.name, description: listing.description)] + cells).joined(separator: " ")
        let nameTokens = ClassSearchDocument.tokens(name: listing.name, description: "")
        try await db.execute("""
            UPDATE classes SET search = array_to_tsvector(array_remove(string_to_array(\(tokens), ' '), '')),
                name_search = array_to_tsvector(array_remove(string_to_array(\(nameTokens), ' '), ''))
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

    /// Up to this many estimated hits, a relevance read takes the GIN index's hits and sorts them; beyond, it walks
    /// `classes_by_recent` newest first, checking each listing's vector, and stops at the page's end. Either way it
    /// reads about as many listings when hits number √(64 × listings), 8,000 at a million listings. The planner's own
    /// choice walks far too often: it does not count the cost of reading each listing's vector (a rare word found only
    /// in descriptions walked the whole table, 31 s).
    static let sortedHitsLimit = 8_000

    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement {
        newestStatement(keyword, nameOnly: nameOnly, columns: columns, conditions: conditions, after: position, limit: limit, sortingHits: false)
    }

    /// Asks the planner how many listings hold the keyword (`EXPLAIN`, no read), then reads the page the cheaper way
    /// (``sortedHitsLimit``).
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, _ db: any SQLExecutor
    ) async throws -> [SQLRow] {
        let plan: [String] = try await db.rows("EXPLAIN SELECT 1 FROM classes c WHERE \(Self.keywordCondition(keyword, nameOnly: nameOnly))")
            .map { try $0["QUERY PLAN"] }
        let estimate = plan.first.flatMap { line in line.firstMatch(of: /rows=(\d+)/).flatMap { Int($0.1) } } ?? Int.max
        return try await db.rows(newestStatement(keyword, nameOnly: nameOnly, columns: columns, conditions: conditions, after: position,
                                                 limit: limit, sortingHits: estimate <= Self.sortedHitsLimit))
    }

    /// The keyword condition of a relevance read: the name's tokens hold the keyword's with `nameOnly`; else all of
    /// them do, and not the name's when the keyword needs no verification (the name tier has those).
    private static func keywordCondition(_ keyword: SearchQuery, nameOnly: Bool) -> SQLStatement {
        if nameOnly { return "c.name_search @@ \(keyword.tsQuery)::tsquery" }
        if keyword.needsVerification { return "c.search @@ \(keyword.tsQuery)::tsquery" }
        return "c.search @@ \(keyword.tsQuery)::tsquery AND NOT c.name_search @@ \(keyword.tsQuery)::tsquery"
    }

    /// A relevance read; with `sortingHits`, ordered so that no index yields the order (`NULLS LAST`, which
    /// `classes_by_recent` does not hold; `created_at` is never NULL): the planner then reads the GIN index's hits and
    /// sorts them.
    private func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, columns: SQLStatement, conditions: [SQLStatement], after position: RecencyPosition?, limit: Int,
        sortingHits: Bool
    ) -> SQLStatement {
        var statement: SQLStatement = """
            SELECT \(columns), c.name_search @@ \(keyword.tsQuery)::tsquery AS name_hit FROM classes c
            WHERE \(Self.keywordCondition(keyword, nameOnly: nameOnly)) AND c.deleted_at IS NULL
            """
        for condition in conditions + (position.map { [$0.listingsAfter(.postgres)] } ?? []) {
            statement.append(" AND \(condition)")
        }
        statement.append(" ORDER BY c.created_at DESC\(raw: sortingHits ? " NULLS LAST" : ""), c.id COLLATE \"C\" DESC LIMIT \(limit)")
        return statement
    }
}
