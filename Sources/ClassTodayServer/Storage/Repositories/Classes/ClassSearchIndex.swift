import ClassTodayCore

/// What class storage does differently per backend: where the keyword tokens live (SQLite's FTS5 table
/// `class_search`, PostgreSQL's `tsvector` column `classes.search`), how a search statement asks for a keyword, and
/// how a nearest-first walk reads a cell. Everything else about classes is written once, in ``SQLClassRepository``
/// and ``SQLClassSearch``.
protocol ClassSearchIndex: Sendable {
    /// Stores the keyword tokens of `listing` (a row of `classes` already), replacing any it had, inside the
    /// caller's transaction.
    func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws
    /// Forgets the keyword tokens of a deleted listing, inside the caller's transaction.
    func remove(classId: String, _ db: any SQLExecutor) async throws
    /// How a search statement over `classes c` selects the listings whose tokens hold `keyword`'s.
    func keyword(_ keyword: SearchQuery, sort: ClassSearch.Sort, withinRanges: Bool) -> KeywordClause
    /// What a nearest-first walk reads of `cell` for a search with `keyword`.
    func cell(_ cell: Geohash, keyword: SearchQuery?, _ db: any SQLExecutor) async throws -> CellCandidates
    /// Placed after `classes c` in a search statement that geohash ranges drive (an index hint), or empty.
    func rangeHint(sort: ClassSearch.Sort, keyword: SearchQuery?) -> String
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
    /// Joined to `classes c` (SQLite's FTS5 table, when it ranks), or empty.
    var join: SQLStatement = ""
    /// The condition: a superset of the listings ``SearchQuery/matches(_:)-(String)`` accepts.
    var condition: SQLStatement
    /// The relevance of a hit, smaller first; selected as `rank` when the search sorts by relevance.
    var rank: SQLStatement?
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
}
