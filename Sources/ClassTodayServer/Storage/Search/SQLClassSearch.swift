import ClassTodayCore
import Foundation

/// Runs a ``ClassSearch`` on either backend: its keyword narrowed first (``KeywordVocabulary``), then answered by one
/// of the named plans (``SearchPlanName``) the planner picks from the search and the backend's capabilities
/// (``SearchPlanner``), each a type of its own under `Storage/Search/` that says when it is chosen and why it is fast
/// there. Each step is one statement that selects only keys: geohash ranges on the `classes_by_geohash` index
/// (`classes_by_district_cell` within a district), the keyword index or the backend's nearest-first order select
/// candidates, and the exact haversine distance (``SQLDialect/distance(lat1:lon1:lat2:lon2:)``), box and keyword
/// checks, every filter and the keyset condition apply in the same statement. The page's listings are then read in
/// one more statement (``ClassViewQuery/views(ids:viewerId:_:)``), so that writer, images and favourite flags are
/// looked up for the page only, never for every candidate.
///
/// Keywords: the index's condition selects a superset of the matches; when ``SearchQuery/needsVerification`` the
/// candidates are confirmed by the index's SQL when it has some, or else in Swift with
/// ``SearchQuery/matches(_:)-(String)``, reading further candidates until the page is full or none are left.
package struct SQLClassSearch {
    /// The search; its keyword narrowed once the read has looked up its typos and words (``KeywordVocabulary``).
    private(set) var search: ClassSearch
    /// The page asked for.
    let page: PageRequest
    /// Who asks, whose blocks and favourites apply.
    let viewerId: String?
    /// The backend's SQL.
    let dialect: SQLDialect
    /// The most keyword hits a nearest-first walk reads at once when it goes far (``AllKeywordHitsPlan``); 0 reads every
    /// cell with statements.
    let fewHits: Int
    /// The most candidates a page's walk confirms or examines before it ends the page where it stands
    /// (``confirmationBudget``).
    let confirming: Int
    /// Where the search records what it did, when asked (``SearchTrace``: `classtoday explain search`, the bench); nil
    /// records nothing.
    let trace: SearchTrace?

    /// The search `search` for the page `page` as `viewerId` sees it, in `dialect`'s SQL; tests set `fewHits` to 0 so
    /// that a walk reads all its cells, and `confirming` low to end pages early; `trace` records what it did.
    package init(
        search: ClassSearch, page: PageRequest, viewerId: String?, dialect: SQLDialect, fewHits: Int = Self.fewHits,
        confirming: Int = Self.confirmationBudget, trace: SearchTrace? = nil
    ) {
        self.search = search
        self.page = page
        self.viewerId = viewerId
        self.dialect = dialect
        self.fewHits = fewHits
        self.confirming = confirming
        self.trace = trace
    }

    /// The most candidates a page's walk reads to confirm a keyword on their text, or, nearest first with statements,
    /// examines in its cells: past them, the page ends with the matches found so far, fewer than its limit or none,
    /// and a cursor where the walk stood, from which the next page goes on. A run of initial consonants almost nothing
    /// matches (`ㅇㅇㅇㅇㅇㅇ`) asks the index for one common pair and confirmed every listing holding it: 19 s for one
    /// page by relevance on a million, 4 s within 50 km over the points and 30 s with statements on PostgreSQL; a
    /// circle whose listings a filter all leaves out (another district) read every cell of it, 4 s within 50 km.
    package static let confirmationBudget = 20_000

    /// The most hits ``AllKeywordHitsPlan`` reads at once by default.
    package static let fewHits = 8_192

    /// The fewest candidates read per statement when keyword candidates are confirmed in Swift.
    static let verificationBatch = 64

    /// The writers whose listings the viewer must not see (blocked either way), read once per search and left out
    /// in Swift: the key statements then select `writer_id`, and stay the same statements whoever the viewer blocked.
    private(set) var blockedWriters: Set<String> = []

    /// Runs the search on `database`: in one snapshot (``SQLDatabase/read(_:)``), unless the backend's index reads the
    /// page in its order (``NearestIndexOrderPlan``) with no filter but status and type, whose page is one statement,
    /// listings and all, and needs no snapshot of its own. A filtered page may ask where its reach ended in a second
    /// statement, which must see the listings the first read.
    package func run(on database: any SQLDatabase) async throws -> Page<ClassView> {
        let nearest = NearestIndexOrderPlan(query: self)
        if let order = nearest.nearestOrder, nearest.filteredReach(for: order) == nil { return try await run(database) }
        return try await database.read { db in try await run(db) }
    }

    /// Runs the search on `db` (one snapshot: inside ``SQLDatabase/read(_:)``, but for a page the index orders), its
    /// statements recorded when its trace asks for them.
    package func run(_ db: any SQLExecutor) async throws -> Page<ClassView> {
        guard let trace, trace.recordsStatements else { return try await answer(db) }
        return try await answer(TracingExecutor(base: db, trace: trace))
    }

    /// Answers the page on `db` with the planner's plans in turn, until one answers.
    private func answer(_ db: any SQLExecutor) async throws -> Page<ClassView> {
        if let keyword = search.keyword, let planned = try await planned(keyword, db) {
            var plannedSearch = self
            plannedSearch.search.keyword = planned
            return try await plannedSearch.answer(db)
        }
        let planner = SearchPlanner(search: search, index: dialect.classIndex, keepsPoints: db.classPoints != nil, readsHitsAtOnce: fewHits > 0)
        var scoped = self
        var readBlocks = false
        for name in planner.plans {
            if !name.leavesOutBlocksItself, !readBlocks, let viewerId {
                scoped.blockedWriters = Set(try await BlockSQL.counterparts(of: viewerId, db))
                readBlocks = true
            }
            if let page = try await scoped.plan(name).answer(db) {
                trace?.answered(by: name)
                return page
            }
            trace?.declined(name)
        }
        preconditionFailure("the planner's last plan answers every page")
    }

    /// The plan named `name` for this search.
    func plan(_ name: SearchPlanName) -> any SearchPlan {
        switch name {
        case .nearestIndexOrder: NearestIndexOrderPlan(query: self)
        case .commonKeywordIndexOrder: CommonKeywordIndexOrderPlan(query: self)
        case .pointWalk: PointWalkPlan(query: self)
        case .keywordHitsByPoints: KeywordHitsByPointsPlan(query: self)
        case .cellWalk: CellWalkPlan(query: self)
        case .allKeywordHits: AllKeywordHitsPlan(query: self)
        case .relevanceTiers: RelevanceTiersPlan(query: self)
        case .newestWindow: NewestWindowPlan(query: self)
        case .rangesInSortOrder: RangesInSortOrderPlan(query: self)
        }
    }

    /// `keyword` as the index had best read it, one step at a time: its typos narrowed to the bigrams the index holds
    /// and its words' prefixes to the few words they start (``KeywordVocabulary``), then, when its candidates are
    /// confirmed anyway, its tokens far more common than the rarest beside them left out, by the counts the backend
    /// keeps (``SearchQuery/leavingOutCommonTokens(counts:)``). Nil once neither step is left.
    private func planned(_ keyword: SearchQuery, _ db: any SQLExecutor) async throws -> SearchQuery? {
        if let narrowed = try await KeywordVocabulary.narrowing(keyword, db) { return narrowed }
        let tokens = keyword.tokensToCount
        guard !tokens.isEmpty, let counts = db.tokenCounts?.counts(of: tokens), !counts.isEmpty else { return nil }
        return keyword.leavingOutCommonTokens(counts: counts)
    }

    /// The statement of the first step (the first cell, for nearest-first searches; the name tier's first read, by
    /// relevance); nil when nothing can match.
    func firstStatement() -> SQLStatement? {
        let nearest = NearestIndexOrderPlan(query: self)
        let ranges = nearest.coveringRanges
        if let order = nearest.nearestOrder {
            return nearest.nearestStatement(order, limit: nearest.firstNearestLimit, after: nil)
        } else if search.sort == .distance, let circle = search.circle {
            var rangeCells: RangeCellStatement?
            return CellWalkPlan(query: self).cellStatement(Geohash(circle.center, precision: 6), limit: page.limit + 1, rangeCells: &rangeCells)?.0
        } else if search.sort == .relevance, let keyword = search.keyword {
            let relevance = RelevanceTiersPlan(query: self)
            guard let area = relevance.areaConditions(ranges: ranges) else { return nil }
            return dialect.classIndex.newestStatement(
                keyword, nameOnly: true, district: search.keywordLocation, columns: relevance.relevanceColumns(area, tier: .name, keyword: keyword),
                conditions: relevance.filterConditions + area.all, after: nil, limit: page.limit + 1)
        }
        let plan = RangesInSortOrderPlan(query: self)
        let clause = search.keyword.map { dialect.classIndex.keyword($0, withinRanges: ranges != nil) }
        return plan.statement(ranges: ranges, limit: page.limit + 1, after: nil, keyword: clause)
    }
}
