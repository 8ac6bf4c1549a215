import ClassTodayCore

/// Class keywords in SQLite: the FTS5 table `class_search` (rowid = `classes.rowid`) holds each listing's tokens
/// and its cells (``ClassSearchDocument``), so that a keyword within a cell is one doclist intersection.
struct FTS5ClassIndex: ClassSearchIndex {
    /// The most keyword hits a cell may hold for a walk to read it: more than ``CellCandidates/crowdedCell``, since
    /// the hits are in hand already (one FTS query) and each split costs an FTS query per child.
    static let crowdedKeywordCell = 256

    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        try await remove(classId: listing.id, db)
        let geohash = listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
        try await db.execute("""
            INSERT INTO class_search (rowid, tokens, cells)
            SELECT rowid, \(ClassSearchDocument.tokens(name: listing.name, description: listing.description)),
                \(ClassSearchDocument.cells(geohash: geohash))
            FROM classes WHERE id = \(listing.id)
            """)
    }

    func remove(classId: String, _ db: any SQLExecutor) async throws {
        try await db.execute("DELETE FROM class_search WHERE rowid = (SELECT rowid FROM classes WHERE id = \(classId))")
    }

    func keyword(_ keyword: SearchQuery, sort: ClassSearch.Sort, withinRanges: Bool) -> KeywordClause {
        let match = ClassSearchDocument.match(keyword)
        let verification: SQLStatement = "ct_matches(\(keyword.canonicalText), c.name, c.description)"
        if sort == .relevance {
            // Confirmed in Swift, in rank order, reading on until the page is full: in SQL every hit would be confirmed
            // before the sort, a million of them for a common word.
            return KeywordClause(join: "JOIN class_search ON class_search.rowid = c.rowid", condition: "class_search MATCH \(match)",
                                 rank: "bm25(class_search)")
        }
        if withinRanges {
            // The area drives: each candidate's tokens are checked by rowid, never the keyword's whole doclist.
            return KeywordClause(condition: "EXISTS (SELECT 1 FROM class_search WHERE class_search MATCH \(match) AND class_search.rowid = c.rowid)",
                                 verification: verification)
        }
        return KeywordClause(condition: "c.rowid IN (SELECT rowid FROM class_search WHERE class_search MATCH \(match))",
                             verification: verification)
    }

    /// Without a keyword, whether the cell holds more than ``CellCandidates/crowdedCell`` listings (deleted ones
    /// included), counted on the geohash index without reading a row. With one, its hits in the cell from one FTS
    /// query, which then serve the cell's read.
    func cell(_ cell: Geohash, keyword: SearchQuery?, _ db: any SQLExecutor) async throws -> CellCandidates {
        if let keyword, let match = ClassSearchDocument.match(keyword, in: cell) {
            let hits: [Int64] = try await db.rows("SELECT rowid FROM class_search WHERE class_search MATCH \(match) LIMIT \(Self.crowdedKeywordCell + 1)")
                .map { try $0["rowid"] }
            guard hits.count <= Self.crowdedKeywordCell else { return .crowded }
            let list = "[" + hits.map(String.init).joined(separator: ",") + "]"
            return .hits(condition: "c.rowid IN (SELECT value FROM json_each(\(list)))", count: hits.count)
        }
        let range = GeohashRange(cell: cell)
        let count: Int = try await db.row("""
            SELECT COUNT(*) AS count FROM (SELECT 1 FROM classes INDEXED BY classes_by_geohash
                WHERE geohash >= \(range.lower) AND geohash < \(range.upper) LIMIT \(CellCandidates.crowdedCell + 1))
            """)?["count"] ?? 0
        return count > CellCandidates.crowdedCell ? .crowded : .range
    }

    /// Without statistics SQLite prices a long OR of ranges above a scan; the ranges are what make geo searches fast,
    /// so the index is pinned unless the keyword index drives the statement (relevance order).
    func rangeHint(sort: ClassSearch.Sort, keyword: SearchQuery?) -> String {
        sort != .relevance || keyword == nil ? "INDEXED BY classes_by_geohash" : ""
    }
}
