import ClassTodayCore

/// Class keywords in PostgreSQL: `classes.search`, a `tsvector` of the exact ``ClassSearchDocument`` tokens (one
/// lexeme each, no parser or dictionary), under a GIN index. PostgreSQL has no bm25: relevance is `ts_rank`,
/// negated so that the smaller key comes first; it depends only on a listing's tokens and the query, so pages are
/// stable.
struct TSVectorClassIndex: ClassSearchIndex {
    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        let tokens = ClassSearchDocument.tokens(name: listing.name, description: listing.description)
        try await db.execute("""
            UPDATE classes SET search = array_to_tsvector(array_remove(string_to_array(\(tokens), ' '), '')) WHERE id = \(listing.id)
            """)
    }

    func remove(classId: String, _ db: any SQLExecutor) async throws {
        try await db.execute("UPDATE classes SET search = ''::tsvector WHERE id = \(classId)")
    }

    func keyword(_ keyword: SearchQuery, sort: ClassSearch.Sort, withinRanges: Bool) -> KeywordClause {
        KeywordClause(condition: "c.search @@ \(keyword.tsQuery)::tsquery",
                      rank: "(-ts_rank(c.search, \(keyword.tsQuery)::tsquery))::float8")
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

    func rangeHint(sort: ClassSearch.Sort, keyword: SearchQuery?) -> String { "" }
}
