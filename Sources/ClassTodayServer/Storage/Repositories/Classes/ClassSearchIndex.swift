import ClassTodayCore

/// What class storage does differently per backend: where the keyword tokens live (SQLite's FTS5 table
/// `class_search`, PostgreSQL's `tsvector` column `classes.search`), how a search statement asks for a keyword, and
/// how a nearest-first walk reads a cell. Everything else about classes is written once, in ``SQLClassRepository``
/// and ``SQLClassSearch``.
protocol ClassSearchIndex: Sendable {
    /// The key a new listing created at `createdAt` (milliseconds since 1970) is stored under, as a column of
    /// `classes` and its value, or nil where the backend picks none.
    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)?
    /// Stores the keyword tokens of `listing` (a row of `classes` already), replacing any it had, inside the
    /// caller's transaction.
    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws
    /// Forgets the keyword tokens of a deleted listing, inside the caller's transaction.
    func remove(classId: String, _ db: any SQLExecutor) async throws
    /// How a search statement over `classes c` selects the listings whose tokens hold `keyword`'s.
    func keyword(_ keyword: SearchQuery, withinRanges: Bool) -> KeywordClause
    /// What a nearest-first walk reads of `cell` for a search with `keyword`.
    func cell(_ cell: Geohash, keyword: SearchQuery?, _ db: any SQLExecutor) async throws -> CellCandidates
    /// Placed after `classes c` in a search statement that geohash ranges drive (an index hint), or empty.
    var rangeHint: String { get }

    /// One read of the walk behind relevance order: the listings satisfying `conditions` (over `classes c`) whose
    /// tokens hold `keyword`'s index condition, or their name's alone with `nameOnly`, newest first (`created_at`,
    /// then id, descending), after `position`, `limit` of them. Each row has `columns` and `name_hit`, whether the
    /// listing's name tokens hold the keyword's (true where the backend keeps every listing's name tokens). Without
    /// `nameOnly`, a keyword that needs no verification leaves out the listings whose name tokens hold it: the name
    /// tier has them. `district`, the search's `keywordLocation` (whose condition is among `conditions`), may narrow
    /// the index read.
    func newestStatement(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int
    ) -> SQLStatement
    /// Runs ``newestStatement(_:nameOnly:district:columns:conditions:after:limit:)`` and returns its rows exactly
    /// newest first; it may return more than `limit` rows, to finish the listings created in the last row's millisecond.
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, _ db: any SQLExecutor
    ) async throws -> [SQLRow]
}

extension ClassSearchIndex {
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, _ db: any SQLExecutor
    ) async throws -> [SQLRow] {
        try await db.rows(newestStatement(keyword, nameOnly: nameOnly, district: district, columns: columns, conditions: conditions,
                                          after: position, limit: limit))
    }
}

/// A place in newest-first order: the creation time and id of the last listing seen.
struct RecencyPosition {
    /// `created_at`, in milliseconds since 1970.
    let createdAt: Int64
    let id: String

    /// The condition over `classes c` selecting the listings after this one, newest first, in `dialect`'s SQL.
    func listingsAfter(_ dialect: SQLDialect) -> SQLStatement {
        "(c.created_at < \(createdAt) OR (c.created_at = \(createdAt) AND c.id \(raw: dialect.byteOrder) < \(id)))"
    }
}

extension SQLDialect {
    /// The keyword index of this dialect's backend.
    var classIndex: any ClassSearchIndex {
        switch backend {
        case .sqlite: FTS5ClassIndex()
        case .postgres: TSVectorClassIndex()
        }
    }
}

/// The parts of a search statement that select a keyword's listings.
struct KeywordClause {
    /// The condition: a superset of the listings ``SearchQuery/matches(_:)-(String)`` accepts.
    var condition: SQLStatement
    /// SQL confirming a keyword that needs verification (``SearchQuery/needsVerification``), or nil: the search
    /// confirms those in Swift, reading on until its page is full.
    var verification: SQLStatement?
}

/// What one cell of a nearest-first walk holds.
enum CellCandidates {
    /// More listings than the walk reads at once: split the cell into its children.
    case crowded
    /// Read the cell's geohash range with the search's whole condition.
    case range
    /// Read only the listings `condition` selects (the cell's keyword hits, already found), `count` of them at
    /// most; they satisfy the keyword's index condition, which the read then leaves out.
    case hits(condition: SQLStatement, count: Int)

    /// The most listings a cell may hold for a walk to read it rather than split it: few enough that reading and
    /// sorting them is cheap, many enough that sparse regions are read in large cells.
    static let crowdedCell = 64

    /// The most keyword hits a cell may hold for a walk to read it: more than ``crowdedCell``, since the hits are in
    /// hand already (one index query) and each split costs an index query per child.
    static let crowdedKeywordCell = 256
}
