import ClassTodayCore

/// Class keywords in PostgreSQL: `classes.search`, a `tsvector` of the exact ``ClassSearchDocument`` tokens (one
/// lexeme each, no parser or dictionary), and `classes.name_search`, those of the name alone, each under a GIN index.
struct TSVectorClassIndex: ClassSearchIndex {
    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)? { nil }

    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        let tokens = ClassSearchDocument.tokens(name: listing.name, description: listing.description)
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

    /// Whether the cell holds more than ``CellCandidates/crowdedCell`` listings (deleted ones included), counted on
    /// the geohash index; the keyword is then checked by the cell's read.
    func cell(_ cell: Geohash, keyword: SearchQuery?, _ db: any SQLExecutor) async throws -> CellCandidates {
        let range = GeohashRange(cell: cell)
        let count: Int = try await db.row("""
            SELECT count(*) AS count FROM (SELECT 1 FROM classes WHERE geohash >= \(range.lower) AND geohash < \(range.upper)
                LIMIT \(CellCandidates.crowdedCell + 1)) cell
            """)?["count"] ?? 0
        return count > CellCandidates.crowdedCell ? .crowded : .range
    }

    var rangeHint: String { "" }

    /// The planner walks `classes_by_recent` (or `classes_by_district`) checking each listing's vector when hits are
    /// common, and reads the GIN index's hits and sorts them when they are rare.
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
