import ClassTodayCore

/// Class keywords in SQLite: the FTS5 table `class_search` (rowid = `classes.rowid`) indexes each listing's tokens,
/// its name's tokens and its cells (``ClassSearchDocument``), so that a keyword within a cell is one doclist
/// intersection. It keeps no copy of them (contentless, migration 0028): triggers on `classes` compute them from the
/// listing's columns (``KeywordIndexTriggers``), and a new index is built in the background (``KeywordIndexBuild``). A listing's rowid is ordered as its creation time (``rowid(createdAt:)``), so that FTS5, walking a
/// doclist by rowid descending, reads hits newest first and stops at the page's end.
struct FTS5ClassIndex: ClassSearchIndex {
    /// Listings created in one millisecond share the rowids from `created_at << millisecondBits` on.
    static let millisecondBits: Int64 = 10

    /// The rowid of a listing created at `createdAt` (milliseconds since 1970): the first one free in that
    /// millisecond's range, so that rowids are ordered as creation times. One millisecond holds 1,024 listings.
    static func rowid(createdAt: Int64) -> SQLStatement {
        let first = createdAt << millisecondBits
        return "(SELECT COALESCE(MAX(rowid) + 1, \(first)) FROM classes WHERE rowid >= \(first) AND rowid < \(first + (1 << millisecondBits)))"
    }

    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)? {
        ("rowid", Self.rowid(createdAt: createdAt))
    }

    /// Nothing to do: triggers on `classes` keep the index (``KeywordIndexTriggers``), whichever process writes.
    func index(_ listing: ClassListing, tokens: ClassSearchDocument.Tokens, _ db: any SQLExecutor) async throws {}

    /// Nothing to do: the trigger on `classes.deleted_at` removes a deleted listing's tokens (``KeywordIndexTriggers``).
    func remove(classId: String, _ db: any SQLExecutor) async throws {}

    func keyword(_ keyword: SearchQuery, withinRanges: Bool) -> KeywordClause {
        let match = ClassSearchDocument.match(keyword)
        let verification: SQLStatement = "ct_matches(\(keyword.canonicalText), c.name, c.description)"
        if withinRanges {
            // The area drives: each candidate's tokens are checked by rowid, never the keyword's whole doclist.
            return KeywordClause(condition: "EXISTS (SELECT 1 FROM class_search WHERE class_search MATCH \(match) AND class_search.rowid = c.rowid)",
                                 verification: verification)
        }
        return KeywordClause(condition: "c.rowid IN (SELECT rowid FROM class_search WHERE class_search MATCH \(match))",
                             verification: verification)
    }

    /// The keyword's hits in the cell from one FTS query (their rowids).
    func hits(in cell: Geohash, keyword: SearchQuery, district: String?) -> CellCandidates? {
        ClassSearchDocument.match(keyword, in: cell, district: district).map { match in
            .hits("SELECT rowid AS key FROM class_search WHERE class_search MATCH \(match)", keyColumn: "c.rowid")
        }
    }

    /// Counted in the FTS index alone, which stops at the limit: a common word's count ends early.
    func mayHoldFewHits(of keyword: SearchQuery, atMost limit: Int, _ db: any SQLExecutor) async throws -> Bool {
        let count: Int = try await db.row("SELECT COUNT(*) AS hits FROM (\(Self.hitRowids(ClassSearchDocument.match(keyword), limit: limit)))")?["hits"] ?? 0
        return count <= limit
    }

    /// None: FTS5 finds a crowded cell in the index alone, stopping one hit past the cell's capacity, so a cell's count
    /// is not kept.
    func estimatedCandidates(of keyword: SearchQuery, in cell: Geohash, _ db: any SQLExecutor) async throws -> Double? {
        nil
    }

    func hitRowids(of keyword: SearchQuery, in cell: Geohash, limit: Int, _ db: any SQLExecutor) async throws -> [Int64]? {
        guard let match = ClassSearchDocument.match(keyword, in: cell) else { return nil }
        return try await db.rows(Self.hitRowids(match, limit: limit)).map { try $0["rowid"] }
    }

    /// Enough to tell a token ``SearchQuery/commonTokenFactor`` times as common as one of 16,000 listings, in about 6 ms
    /// once per token (``TokenCounts/lifetime``), apart from the searches.
    var countedListings: Int { 65_536 }

    /// Counted in the FTS index alone, in one statement, each count stopping at the limit: about 0.1 ms per 1,000
    /// listings.
    func counts(of tokens: [String], upTo limit: Int, _ db: any SQLExecutor) async throws -> [String: Int] {
        guard !tokens.isEmpty else { return [:] }
        var statement = tokens.indices.map { index -> SQLStatement in
            let match = "tokens : " + SearchQuery.TokenRequirement(token: tokens[index], isPrefix: false).ftsMatchOperand
            return "SELECT \(index) AS token, (SELECT COUNT(*) FROM (\(Self.hitRowids(match, limit: limit - 1)))) AS listings"
        }.joined(with: " UNION ALL ")
        // Texts naming a search's own tokens would fill SQLite's statement cache.
        statement.isCached = false
        var counts: [String: Int] = [:]
        for row in try await db.rows(statement) {
            counts[tokens[try row["token"] as Int]] = try row["listings"]
        }
        return counts
    }

    /// The rowids of the FTS expression `match`'s hits, `limit` + 1 at most, read from the FTS index alone, which stops
    /// at the limit.
    private static func hitRowids(_ match: String, limit: Int) -> SQLStatement {
        "SELECT rowid FROM class_search WHERE class_search MATCH \(match) LIMIT \(limit + 1)"
    }

    /// The range's listings, or the district's, on the index that holds them (``rangeHint(district:)``), without
    /// reading a row.
    func candidates(in range: GeohashRange, district: String?) -> CellCandidates {
        .range(range, district: district, from: "classes \(rangeHint(district: district))")
    }

    /// Without statistics SQLite prices a long OR of ranges above a scan; the ranges are what make geo searches fast,
    /// so the index is pinned: the geohash index, or the district's (`classes_by_district_cell`) within a district,
    /// which holds a city's listings of one district among those of all the others (on 1,000,000 classes, a map page
    /// of one district over three geohash ranges read 24 ms instead of 142).
    func rangeHint(district: String?) -> String {
        district == nil ? "INDEXED BY classes_by_geohash" : "INDEXED BY classes_by_district_cell"
    }

    /// The recency index, newest first.
    var newestWindowHint: String? { "INDEXED BY classes_by_recent" }

    /// Yes: SQLite plans an `OR` of many ranges as a scan of the whole pinned index.
    var joinsRanges: Bool { true }

    /// FTS5 drives (`CROSS JOIN` keeps it the outer loop) and walks its doclist by rowid descending, which is newest
    /// first but for listings created in the same millisecond: ``newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``
    /// puts those in id order. A district is a token of the `cells` column, intersected in the index.
    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement {
        var conditions = conditions
        if let position {
            conditions.append(position.listingsAfter(.sqlite))
            conditions.append("class_search.rowid < \((position.createdAt + 1) << Self.millisecondBits)")
        }
        return newestStatement(Self.newestMatch(keyword, nameOnly: nameOnly, district: district), columns: columns, conditions: conditions, limit: limit)
    }

    /// Reads `limit` hits at most, never stopping short of them (`enough` is for backends that read windows).
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, enough: Int, _ db: any SQLExecutor
    ) async throws -> NewestHits {
        var rows = try await db.rows(newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions,
                                                     after: position, limit: limit))
        let slots: Int64 = (1 << Self.millisecondBits) - 1
        if rows.count >= limit, let last: Int64 = try rows.last?["search_rowid"], last & slots != 0 {
            // The last row's millisecond may hold more hits, at lower rowids: read them all.
            var rest = conditions
            if let position { rest.append(position.listingsAfter(.sqlite)) }
            rest += ["class_search.rowid >= \(last & ~slots)", "class_search.rowid < \(last)"]
            rows += try await db.rows(newestStatement(Self.newestMatch(keyword, nameOnly: nameOnly, district: district), columns: columns,
                                                      conditions: rest, limit: nil))
        }
        let keyed = try rows.map { row in (createdAt: try row["created_at"] as Int64, id: try row["id"] as String, row: row) }
        return NewestHits(rows: keyed.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.row), mayContinue: rows.count >= limit)
    }

    /// The FTS5 expression of a ``newestStatement(_:nameOnly:district:columns:conditions:after:limit:)``.
    private static func newestMatch(_ keyword: SearchQuery, nameOnly: Bool, district: String?) -> String {
        let inName = ClassSearchDocument.match(keyword, nameOnly: true)
        var match = inName
        if !nameOnly {
            let anywhere = ClassSearchDocument.match(keyword)
            match = keyword.needsVerification ? anywhere : "(\(anywhere)) NOT (\(inName))"
        }
        guard let district else { return match }
        return "(\(match)) AND \(ClassSearchDocument.inDistrict(district))"
    }

    /// The statement behind both reads of ``newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``, for the
    /// FTS5 expression `match`.
    private func newestStatement(_ match: String, columns: SQLStatement, conditions: [SQLStatement], limit: Int?) -> SQLStatement {
        var statement: SQLStatement = """
            SELECT class_search.rowid AS search_rowid, 1 AS name_hit, \(columns) FROM class_search CROSS JOIN classes c
            WHERE class_search MATCH \(match) AND c.rowid = class_search.rowid
                AND c.deleted_at IS NULL
            """
        for condition in conditions { statement.append(" AND \(condition)") }
        statement.append(" ORDER BY class_search.rowid DESC")
        if let limit { statement.append(" LIMIT \(limit)") }
        return statement
    }
}
