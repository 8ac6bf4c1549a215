import ClassTodayCore
import Foundation

/// ``SearchPlanName/cellWalk``: a page by distance within a circle, walking the circle's geohash cells nearest first
/// (``NearestCellWalk``) with one statement per cell: a cell the backend's index finds crowded
/// (``CellCandidates/capacity``) is split into its children, any other is read with its range's statement, written
/// once for the walk (``RangeCellStatement``), and the walk stops once the page holds listings nearer than the next
/// cell can offer. Chosen for the nearest-first pages the plans before it decline, and always for a keyword or a
/// district on PostgreSQL; fast because a dense city is read in small cells around the centre and a sparse region in
/// large ones, and neither reads the whole circle. A keyword that needs confirming and finds little in its first cells
/// hands its page over to ``AllKeywordHitsPlan`` when its hits are few.
struct CellWalkPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let circle = search.circle else { return nil }
        try await index.prepareWalk(db)
        let (keys, resumeAfter) = try await nearestFirst(db, circle: circle)
        return try await views(for: keys, resumingAfter: resumeAfter, db)
    }

    /// The keys of a nearest-first page read cell by cell with statements (``cellKeys(_:cell:limit:rangeCells:)``), and
    /// where the walk stood when it ended the page early: past ``confirming`` candidates examined in its cells (a
    /// keyword's to confirm, a filter's to check; a cell's statement counts as a full cell of listings,
    /// ``CellCandidates/crowdedCell``, at least), the page ends at the next cell, with the keys nearer than it, fewer
    /// than the page wants or none, and resumes from that cell's least distance (a key of no id, which every id
    /// follows). Each cell's candidates are examined cell by cell, not in distance order, so the page cannot end within
    /// a cell. A search without a keyword examines ``filterFactor`` times as many; one with no filter but status and
    /// type either has no budget: it gives the pages of the walk over the listings' points
    /// (``PointWalkPlan``), which it stands in for (with other filters, a page it ends at its budget
    /// ends earlier than the points' would; the pages after it go on from there). A cell every point of which comes
    /// before the page's cursor is not read.
    private func nearestFirst(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> (keys: [SearchKey], resumeAfter: SearchKey?) {
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var keys = NearestFirstPage<SearchKey, String>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: { $0.id })
        var rangeCells: RangeCellStatement?
        var cellsRead = 0
        var examined = 0
        // A search the listings' points could answer walks as they would, whole: its cells rarely lack a match.
        let budget = search.keyword != nil ? confirming : search.filtersOnlyByStatusAndType ? .max : Self.filterFactor * confirming
        let after = startPosition?.value.double ?? 0
        var nextCheck = search.keyword?.needsVerification == true ? Self.cellsBeforeHits : Int.max
        while let entry = walk.popNearest(), !keys.settle(before: entry.minimumDistance) {
            // Past the budget, the page ends once the walk has gone beyond its cursor, so that the next page goes on.
            if examined >= budget, entry.minimumDistance > after {
                return (keys.settledItems, SearchKey(id: "", distance: entry.minimumDistance))
            }
            if liesBeforeCursor(entry.cell, of: circle) { continue }
            if entry.cell.precision < Geohash.storagePrecision, try await isSurelyCrowded(entry.cell, db) {
                walk.split(entry)
                continue
            }
            let read = try await cellKeys(db, cell: entry.cell, limit: keys.stillWanted, rangeCells: &rangeCells)
            // A statement costs at least a full cell's reading in its round trip, however few its candidates. The cells
            // across the cursor, which each page after it reads again, count too: not counted, they made a page of a
            // run of initials within a district and 50 km take 1.9 s (0.25 s counted, in more pages).
            examined += max(read.candidates, CellCandidates.crowdedCell)
            if let found = read.keys {
                trace?.examined(read.candidates)
                keys.add(found)
                cellsRead += 1
                if cellsRead == nextCheck {
                    nextCheck = 4 * keys.count < keys.wanted ? .max : 2 * nextCheck
                    if nextCheck == .max, let found = try await AllKeywordHitsPlan(query: query).keysFromHits(db) {
                        trace?.handedOver(to: .allKeywordHits)
                        return (found, nil)
                    }
                }
            } else if entry.cell.precision < Geohash.storagePrecision {
                walk.split(entry)
            } else {
                // A crowded cell of the finest precision: read its range with the search's whole condition.
                keys.add(try await self.keys(db, ranges: [GeohashRange(cell: entry.cell)], limit: keys.stillWanted))
            }
        }
        return (keys.finish(), nil)
    }

    /// How many times the budget a walk without a keyword examines (``confirming``): its cells' listings are checked
    /// on their columns, not confirmed on their text. A district no listing within 50 km holds walked a page past
    /// 20,000 listings in 30-40 ms on SQLite, and a million's circle in hundreds of pages of none; a keyword's
    /// candidates confirmed on PostgreSQL took 0.3-0.6 s.
    private static let filterFactor = 8

    /// Whether the backend's counts say that `cell` holds over ``surelyCrowdedCell`` of the keyword's candidates
    /// (``ClassSearchIndex/estimatedCandidates(of:in:_:)``), so that the walk splits it without asking the index. On
    /// PostgreSQL, a GIN intersection saying a large cell is crowded cost 3-8 ms of a rare word's 20-35 (`@wyd` for
    /// `jlpt` or `공업수학` within 50 km of Seoul), and the counts said so in memory. Within a district the estimate is
    /// the keyword's in the whole cell, as the counts cannot tell the district's share of a cell: splitting the cells
    /// of a district ahead of the index kept `피아노` within 10 km of Sillim and `관악구` at 25-28 ms (37-50 asking the
    /// index for every cell), though it splits cells outside the district in vain (`jlpt` and `강남구` within 50 km,
    /// 78-79 ms against 41-43 asking).
    private func isSurelyCrowded(_ cell: Geohash, _ db: any SQLExecutor) async throws -> Bool {
        guard let keyword = search.keyword, let estimate = try await index.estimatedCandidates(of: keyword, in: cell, db) else { return false }
        return estimate > Double(Self.surelyCrowdedCell)
    }

    /// The fewest candidates estimated in a cell for the walk to split it without asking the index: twice what a
    /// cell may hold to be read, since an estimate takes the keyword and the place as independent, and a cell split
    /// in vain costs a statement per child the walk reaches, where one asked in vain costs one.
    private static let surelyCrowdedCell = 2 * CellCandidates.crowdedKeywordCell

    /// How many cells the walk of a keyword that needs confirming reads before it asks whether its hits are few
    /// (``AllKeywordHitsPlan``), when it has found less than a quarter of its page by then; it asks again, once at most,
    /// after twice as many cells and so on. A page whose matches lie near the centre is read by then, or soon after.
    /// Only such keywords ask: their candidates may be many more than their matches, which the walk reads cell by cell;
    /// another keyword's cells hold its matches only, and a walk over cells holding few or none is quick.
    private static let cellsBeforeHits = 4

    /// Up to `limit` keys of a walk's cell that satisfy everything, after the cursor, read in one statement
    /// (``cellStatement(_:limit:rangeCells:)``), and how many candidates the cell's statement examined for them; no keys
    /// when the cell is crowded.
    private func cellKeys(
        _ db: any SQLExecutor, cell: Geohash, limit: Int, rangeCells: inout RangeCellStatement?
    ) async throws -> (keys: [SearchKey]?, candidates: Int) {
        guard let (statement, confirmedHere) = cellStatement(cell, limit: limit, rangeCells: &rangeCells) else { return ([], 0) }
        let rows = try await db.rows(statement)
        let candidates: Int = try rows.first?["candidates"] ?? 0
        guard let isRead: Bool = try rows.first?["cell_read"], isRead else { return (nil, candidates) }
        let fetched = try rows.filter { try $0.value("id") != .null }.map { try SearchKey(row: $0, sort: search.sort) }
        return (Array(fetched.filter { accepts($0, confirming: confirmedHere) }.prefix(limit)), candidates)
    }

    /// The statement reading a walk's cell, and the keyword to confirm in Swift; nil when nothing can match. A cell
    /// whose keyword hits the index holds (``ClassSearchIndex/hits(in:keyword:district:)``) gets a statement of its
    /// own; the others share the walk's `rangeCells`, written for the first of them.
    func cellStatement(
        _ cell: Geohash, limit: Int, rangeCells: inout RangeCellStatement?
    ) -> (SQLStatement, confirmedHere: SearchQuery?)? {
        if let keyword = search.keyword, let hits = index.hits(in: cell, keyword: keyword, district: search.keywordLocation) {
            return cellStatement(hits, range: GeohashRange(cell: cell), limit: limit)
        }
        if rangeCells == nil { rangeCells = rangeCellStatement() }
        return rangeCells?.bound(to: cell, limit: limit)
    }

    /// The walk's statement for the cells it reads by geohash range, with marks for the range and the limit.
    private func rangeCellStatement() -> RangeCellStatement? {
        let range = GeohashRange(lower: RangeCellStatement.lowerMark, upper: RangeCellStatement.upperMark)
        let candidates = index.candidates(in: range, district: search.keywordLocation)
        return cellStatement(candidates, range: range, limit: RangeCellStatement.limitMark).map(RangeCellStatement.init)
    }

    /// The statement reading the walk's cell `range` whose candidates are `candidates`: it first finds them, says in
    /// `candidates` how many (up to one more than their capacity) and in `cell_read` whether they are few enough to
    /// read, and only then reads the keys of up to `limit` listings (all the candidates when some may be left out in
    /// Swift). It is prepared once for the walk's next cells. Also returns the keyword to confirm in Swift; nil when
    /// nothing can match.
    private func cellStatement(
        _ candidates: CellCandidates, range: GeohashRange, limit: Int
    ) -> (SQLStatement, confirmedHere: SearchQuery?)? {
        let clause = search.keyword.map { index.keyword($0, withinRanges: true) }
        let confirmedHere = confirmedHere(clause, restricted: candidates.reading.readsHits)
        let filtersHere = confirmedHere != nil || !blockedWriters.isEmpty
        let count: SQLStatement = "(SELECT COUNT(*) FROM \(raw: CellCandidates.table))"
        let gate: SQLStatement = "\(count) <= \(candidates.capacity)"
        guard let read = statement(ranges: [range], limit: filtersHere ? candidates.capacity : limit, after: startPosition,
                                   keyword: clause, reading: candidates.reading, gate: gate, withText: confirmedHere != nil)
        else { return nil }
        var statement: SQLStatement = """
            WITH \(raw: CellCandidates.table) AS (\(candidates.select))
            SELECT n.cell_read, n.candidates, k.* FROM (SELECT \(gate) AS cell_read, \(count) AS candidates) n LEFT JOIN (\(read)) k ON 1 = 1
            """
        statement.isRepeated = true
        return (statement, confirmedHere)
    }
}
