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

    /// Without a keyword, whether the cell holds more than ``CellCandidates/crowdedCell`` listings (deleted ones
    /// included), counted on the geohash index. With one, its hits in the cell from one GIN query, which then serve the
    /// cell's read.
    func cell(_ cell: Geohash, keyword: SearchQuery?, _ db: any SQLExecutor) async throws -> CellCandidates {
        if let keyword, let token = ClassSearchDocument.cellToken(cell) {
            let query = "(\(keyword.tsQuery)) & \(Self.cellQuery(token))"
            let hits: [String] = try await db.rows("""
                SELECT id FROM classes WHERE search @@ \(query)::tsquery LIMIT \(CellCandidates.crowdedKeywordCell + 1)
                """).map { try $0["id"] }
            guard hits.count <= CellCandidates.crowdedKeywordCell else { return .crowded }
            return .hits(condition: "c.id = ANY(string_to_array(\(hits.joined(separator: ",")), ','))", count: hits.count)
        }
        let range = GeohashRange(cell: cell)
        let count: Int = try await db.row("""
            SELECT count(*) AS count FROM (SELECT 1 FROM classes WHERE geohash >= \(range.lower) AND geohash < \(range.upper)
                LIMIT \(CellCandidates.crowdedCell + 1)) cell
            """)?["count"] ?? 0
        return count > CellCandidates.crowdedCell ? .crowded : .range
    }

    var rangeHint: String { "" }

    /// The planner walks `classes_by_recent` (or `classes_by_district`) checking each listing's vector when hits are
    /// common, and reads the GIN index's hits and sorts them when they are rare; `district` is among `conditions`.
    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement {
        var statement: SQLStatement = """
            SELECT \(columns), c.name_search @@ \(keyword.tsQuery)::tsquery AS name_hit FROM classes c
            WHERE c.\(raw: nameOnly ? "name_search" : "search") @@ \(keyword.tsQuery)::tsquery AND c.deleted_at IS NULL
            """
        if !nameOnly, !keyword.needsVerification { statement.append(" AND NOT c.name_search @@ \(keyword.tsQuery)::tsquery") }
        for condition in conditions + (position.map { [$0.listingsAfter(.postgres)] } ?? []) {
            statement.append(" AND \(condition)")
        }
        statement.append(" ORDER BY c.created_at DESC, c.id COLLATE \"C\" DESC LIMIT \(limit)")
        return statement
    }
}
