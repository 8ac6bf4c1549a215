import ClassTodayCore

/// What class storage does differently per backend: where the keyword tokens live (SQLite's FTS5 table
/// `class_search`, PostgreSQL's `tsvector` column `classes.search`), how a search statement asks for a keyword, and
/// how a nearest-first walk reads a cell. Everything else about classes is written once, in ``SQLClassRepository``
/// and ``SQLClassSearch``.
protocol ClassSearchIndex: Sendable {
    /// The key a new listing created at `createdAt` (milliseconds since 1970) is stored under, as a column of
    /// `classes` and its value, or nil where the backend picks none.
    func rowKey(createdAt: Int64) -> (column: String, value: SQLStatement)?
    /// Stores the keyword tokens of `listing` (a row of `classes` already), `tokens`, replacing any it had, inside the
    /// caller's transaction.
    func index(_ listing: ClassListing, tokens: ClassSearchDocument.Tokens, _ db: any SQLExecutor) async throws
    /// Forgets the keyword tokens of a deleted listing, inside the caller's transaction.
    func remove(classId: String, _ db: any SQLExecutor) async throws
    /// How a search statement over `classes c` selects the listings whose tokens hold `keyword`'s.
    func keyword(_ keyword: SearchQuery, withinRanges: Bool) -> KeywordClause
    /// What a nearest-first walk reads first of `cell` for a search with `keyword`: the cell's hits, from the keyword
    /// index, those of `district` alone when the search names one; nil when the index holds no token for the cell,
    /// whose listings the walk then reads by range.
    func hits(in cell: Geohash, keyword: SearchQuery, district: String?) -> CellCandidates?
    /// What a nearest-first walk reads first of a cell it reads by its geohash range `range`: the range's listings, or
    /// those of `district` alone when the search names one.
    func candidates(in range: GeohashRange, district: String?) -> CellCandidates
    /// Readies the rest of the caller's read for a nearest-first walk, whose cell statements the backend may plan once
    /// for all the cells they read. The walk is the read's last step but for its page's listings.
    func prepareWalk(_ db: any SQLExecutor) async throws
    /// Placed after `classes c` in a search statement that geohash ranges drive (an index hint), or empty; `district`
    /// is the search's, which the statement reads within.
    func rangeHint(district: String?) -> String
    /// Placed after `classes c` in a search statement that reads the newest listings of a circle or box on the recency
    /// index before its geohash ranges, where the backend pins its range index (``rangeHint(district:)``) and would
    /// otherwise read every listing of the area for a page by recency; nil where its planner chooses.
    var newestWindowHint: String? { get }
    /// Whether a statement over several geohash ranges joins them as a table of bounds, each searched on the range
    /// index, instead of naming them in one `OR`: SQLite planned an `OR` of 23 ranges (a 1 km circle) as a scan of the
    /// whole index, 0.9-1.4 s on 1,000,000 classes, where the join took 8-13 ms.
    var joinsRanges: Bool { get }
    /// The backend's own index order of listings by nearness to `circle`'s centre, when it has one: a search by
    /// distance without a keyword or a district then reads its page in that order instead of walking cells. Nil walks.
    func nearestOrder(within circle: ClassSearch.Circle) -> NearestOrder?
    /// How many listings a nearest-first page of `keyword`'s hits may check in the index's order
    /// (``nearestOrder(within:)``), when the keyword is so common that `wanted` hits lie among the nearest few; nil
    /// when the walk reads its hits from the keyword index instead.
    func nearestReach(of keyword: SearchQuery, wanted: Int, _ db: any SQLExecutor) async throws -> Int?
    /// Whether `limit` listings at most may hold `keyword`'s tokens, when the index can tell without reading their rows;
    /// true when it cannot, and the caller's read counts them itself.
    func mayHoldFewHits(of keyword: SearchQuery, atMost limit: Int, _ db: any SQLExecutor) async throws -> Bool
    /// The rowids (`classes.rowid`) of the listings stored in `cell` whose tokens hold `keyword`'s, `limit` + 1 at most,
    /// read from the keyword index alone: for a cell finer than the index's cells, those of its enclosing cell. Nil for a
    /// cell coarser than the index's cells, and where the index cannot tell hits without reading rows of `classes`.
    func hitRowids(of keyword: SearchQuery, in cell: Geohash, limit: Int, _ db: any SQLExecutor) async throws -> [Int64]?
    /// How many listings hold each of `tokens` (exact keyword tokens), up to `limit`, as the backend can tell without
    /// reading rows of `classes`: some tokens may be left out, or all.
    func counts(of tokens: [String], upTo limit: Int, _ db: any SQLExecutor) async throws -> [String: Int]
    /// The most listings a count kept in memory reads (``TokenCounts``).
    var countedListings: Int { get }
    /// About how many of `keyword`'s candidates the listings stored in `cell` hold, by the counts the backend keeps
    /// (``SQLExecutor/tokenCounts``): the keyword's ``SearchQuery/estimatedCandidates(counts:)`` in the cell's share of
    /// the listings, as if where a listing lies and what it says were independent. Nil when the backend keeps no count
    /// of the cell's listings: a walk then asks the index whether the cell is crowded.
    func estimatedCandidates(of keyword: SearchQuery, in cell: Geohash, _ db: any SQLExecutor) async throws -> Double?

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
    /// Reads the hits of ``newestStatement(_:nameOnly:district:columns:conditions:after:limit:)`` exactly newest first:
    /// `limit` of them, or more, to finish the listings created in the last row's millisecond; or fewer but `enough`
    /// at least, when the backend found them among the newest listings only and more may follow (``NewestHits``).
    func newest(
        _ keyword: SearchQuery, nameOnly: Bool, district: String?, columns: SQLStatement, conditions: [SQLStatement],
        after position: RecencyPosition?, limit: Int, enough: Int, _ db: any SQLExecutor
    ) async throws -> NewestHits
}

/// One read of the hits behind relevance order (``ClassSearchIndex/newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``).
struct NewestHits {
    /// The hits read, exactly newest first: every hit after the read's position and not older than the last row.
    let rows: [SQLRow]
    /// Whether older hits may remain: the read stopped at its limit, or read only the newest listings.
    let mayContinue: Bool
}

extension ClassSearchIndex {
    func prepareWalk(_ db: any SQLExecutor) async throws {}

    func nearestOrder(within circle: ClassSearch.Circle) -> NearestOrder? { nil }

    func nearestReach(of keyword: SearchQuery, wanted: Int, _ db: any SQLExecutor) async throws -> Int? { nil }

    func hitRowids(of keyword: SearchQuery, in cell: Geohash, limit: Int, _ db: any SQLExecutor) async throws -> [Int64]? { nil }
}

/// An index's order of listings by nearness to a point (``ClassSearchIndex/nearestOrder(within:)``), each expression
/// over `classes c`. It ascends with the great-circle distance from the point, which the search computes itself from
/// each listing's position (``Haversine``); the two agree to within floating point, far less than ``margin``.
struct NearestOrder {
    /// Ascends as the great-circle distance from the point does, and an index reads listings in its order.
    let nearness: SQLStatement
    /// Holds for every listing within the circle, and for some beyond it; the index narrows its read with it.
    let within: SQLStatement
    /// A condition holding for every listing at least the given distance in metres from the point, and for some
    /// nearer: where a page after a cursor starts reading.
    let atLeast: (Double) -> SQLStatement
    /// Whether the index holds each listing's price beside its point, so that a price range narrows the read in its
    /// order (PostgreSQL's `classes_by_sphere_price`).
    var checksPrices = false
    /// How far the index's order and the computed distance may disagree, in metres: far more than floating point's
    /// error over the largest circle, far less than any two listings' distances tell apart.
    static let margin = 0.001
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

/// What a nearest-first walk reads first of one cell, in the same statement as the cell's listings: its candidates,
/// one more than it may hold at most, so that a crowded cell is split instead of read.
struct CellCandidates {
    /// Selects the cell's candidates, ``capacity`` + 1 rows at most; the cell's statement names them ``table``.
    let select: SQLStatement
    /// The most candidates the cell may hold for the walk to read it rather than split it.
    let capacity: Int
    /// How the cell's read finds the candidates' listings.
    let reading: Reading

    /// How a cell's read finds the listings of its candidates.
    enum Reading {
        /// The candidates are all the listings of the cell's geohash range: the read selects them by range again.
        case range
        /// The candidates are keyword hits, as a column `key`: the read selects the listings of `classes c` that
        /// `restriction` names, which replaces the keyword's index condition.
        case keys(restriction: SQLStatement)
        /// The candidates are keyword hits read whole, each with the columns a cell's read names (``hitColumns``): the
        /// read selects from them, named `c`, in place of `classes`, without finding each hit again by its key.
        case rows

        /// Whether the candidates are keyword hits, which stand for the keyword's index condition.
        var readsHits: Bool {
            if case .range = self { false } else { true }
        }
    }

    /// The name of the candidates in the cell's statement.
    static let table = "cell_candidates"

    /// The listings of the geohash range `range` (deleted ones included), found on the geohash index, or those of
    /// `district` alone, found on the district's (`classes_by_district_cell`); `table` is `classes` with the backend's
    /// index hint, if any.
    static func range(_ range: GeohashRange, district: String?, from table: String, capacity: Int = crowdedCell) -> CellCandidates {
        let inDistrict: SQLStatement = district.map { "keyword_location = \($0) AND " } ?? ""
        return CellCandidates(select: """
            SELECT 1 AS key FROM \(raw: table) WHERE \(inDistrict)geohash >= \(range.lower) AND geohash < \(range.upper) LIMIT \(capacity + 1)
            """, capacity: capacity, reading: .range)
    }

    /// The cell's keyword hits: `select` selects their keys, as a column `key`, from the keyword index; `keyColumn`
    /// is the column of `classes c` they are.
    static func hits(_ select: SQLStatement, keyColumn: String) -> CellCandidates {
        CellCandidates(select: "\(select) LIMIT \(crowdedKeywordCell + 1)", capacity: crowdedKeywordCell,
                       reading: .keys(restriction: "\(raw: keyColumn) IN (SELECT key FROM \(raw: table))"))
    }

    /// The cell's keyword hits, read whole from `classes c` (``hitColumns``) on the index that `condition` (the keyword's
    /// and the cell's) is over: for a backend whose key is no row address, where finding each hit again by its key is an
    /// index read (on PostgreSQL, half of a cell's statement).
    static func hitRows(where condition: SQLStatement) -> CellCandidates {
        CellCandidates(select: "SELECT \(raw: hitColumns) FROM classes c WHERE \(condition) LIMIT \(crowdedKeywordCell + 1)",
                       capacity: crowdedKeywordCell, reading: .rows)
    }

    /// The columns of `classes c` that a cell's read names: the listing's keys, place and text, and those of every
    /// filter and of moderation.
    static let hitColumns = ClassViewQuery.listingColumns + ", c.geohash, c.deleted_at, c.subjects_mask, c.targets_mask, c.days_mask"

    /// The most listings a cell may hold for a walk to read it rather than split it: few enough that reading and
    /// sorting them is cheap, many enough that sparse regions are read in large cells.
    static let crowdedCell = 64

    /// The most keyword hits a cell may hold for a walk to read it: more than ``crowdedCell``, since the hits are read
    /// through the keyword index (one intersection) and each split costs a statement per child.
    static let crowdedKeywordCell = 256
}
