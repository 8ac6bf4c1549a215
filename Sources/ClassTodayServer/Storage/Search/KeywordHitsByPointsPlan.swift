import ClassTodayCore
import Foundation

/// ``SearchPlanName/keywordHitsByPoints``: a keyword's page by distance within a circle, with no district, walking the
/// circle's cells nearest first, each cell's hits read from the keyword index as rowids alone
/// (``ClassSearchIndex/hitRowids(of:in:limit:_:)``) and placed with the listings' points in memory
/// (``ClassPointIndex``). Chosen where the backend keeps the points (SQLite); fast there because the walk reads no
/// listing's row, and a keyword that needs confirming is confirmed on the text of the candidates the walk has passed
/// only. It declines when the index reads no rowids or the page's cursor is not one of its pages'.
struct KeywordHitsByPointsPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let circle = search.circle, let (keys, resumeAfter) = try await nearestFirstOverHits(db, circle: circle) else { return nil }
        return try await views(for: keys, resumingAfter: resumeAfter, db)
    }

    /// The keys of a keyword's nearest-first page walked over the listings' points in memory
    /// (``SQLExecutor/classPoints``): the walk of ``CellWalkPlan``, each cell's hits read from the keyword
    /// index as rowids alone (``ClassSearchIndex/hitRowids(of:in:limit:_:)``) and placed with the points, which give
    /// their distance and leave out those the search's filters or hidden writers leave out. A cell holding more than
    /// ``crowdedHitCell`` hits is split, but at the finest cell the index holds, which is read whole. No listing's row is
    /// read for the walk: the candidates of a keyword that needs confirming are confirmed on their text nearest first,
    /// only once the walk has passed them (``settle(_:into:before:wanted:keyword:_:_:)``). As a statement returns rowids
    /// alone, a cell of several hundred hits costs about what the keyword's intersection with the cell costs: cells
    /// twice as crowded as the walk with statements reads are read whole, in fewer statements. Past ``confirming``
    /// candidates confirmed, the page ends where the walk stands (the second key returned, after which it goes on).
    ///
    /// With filters beyond status and type, which the points check, past ``confirming`` hits read (a cell's statement
    /// counting as a crowded cell at least) the page ends at the next cell, as the walk with statements ends it.
    ///
    /// Nil when the points cannot answer: the search has a district, its cursor is not one of their pages', its
    /// ``fewHits`` is 0 (the walk then reads every cell with statements), or the index reads no rowids.
    private func nearestFirstOverHits(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> (keys: [SearchKey], resumeAfter: SearchKey?)? {
        guard let keyword = search.keyword, fewHits > 0, search.keywordLocation == nil, let points = try await db.classPoints?.points(db),
              let filter = try await pointFilter(points, circle: circle, db)
        else { return nil }
        let wanted = page.limit + 1
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var found: [PointKey] = []
        var pending: [Hit] = []
        var confirmation = Confirmation()
        // Hits that filters beyond status and type may leave out count against the budget, as the walk with statements
        // counts its cells' candidates (a cell's statement as a crowded cell at least).
        let hitBudget = search.filtersOnlyByStatusAndType ? Int.max : confirming
        var examined = 0
        let after = startPosition?.value.double ?? 0
        while let entry = walk.popNearest() {
            try await settle(&pending, into: &found, before: entry.minimumDistance, wanted: wanted, keyword: keyword, &confirmation, db)
            if found.count >= wanted || confirmation.count >= confirming { break }
            // Past the budget, the page ends once the walk has gone beyond its cursor, so that the next page goes on.
            if examined >= hitBudget, entry.minimumDistance > after {
                return (found.map(SearchKey.init(point:)), SearchKey(id: "", distance: entry.minimumDistance))
            }
            if liesBeforeCursor(entry.cell, of: circle) { continue }
            let finest = entry.cell.precision >= ClassSearchDocument.cellPrecisions.upperBound
            let limit = finest ? Self.finestCellHits : Self.crowdedHitCell
            guard let rowids = try await index.hitRowids(of: keyword, in: entry.cell, limit: limit, db) else {
                // A cell coarser than the index's cells is split; an index reading no rowids cannot walk.
                guard entry.cell.precision < ClassSearchDocument.cellPrecisions.lowerBound else { return nil }
                walk.split(entry)
                continue
            }
            if rowids.count > limit {
                guard !finest else { return nil }
                walk.split(entry)
                continue
            }
            examined += max(rowids.count, CellCandidates.crowdedCell)
            trace?.examined(rowids.count)
            pending += place(rowids, in: points, cell: entry.cell, filter: filter)
            pending.sort { ($0.point.distance, $0.point.id) < ($1.point.distance, $1.point.id) }
        }
        // Past the budget, this confirms nothing more: the page ends where the walk stands.
        try await settle(&pending, into: &found, before: .infinity, wanted: wanted, keyword: keyword, &confirmation, db)
        let resumeAfter = found.count < wanted && confirmation.count >= confirming ? confirmation.last.map(SearchKey.init(point:)) : nil
        return (found.map(SearchKey.init(point:)), resumeAfter)
    }

    /// How far a walk has gone confirming a keyword's candidates on their text: how many it read, and the last of them
    /// in the walk's order, after which a page ended early goes on (``confirming``).
    private struct Confirmation {
        var count = 0
        var last: PointKey?
    }

    /// The most hits of a cell ``nearestFirstOverHits(_:circle:)`` reads rather than split it.
    private static let crowdedHitCell = 2 * CellCandidates.crowdedKeywordCell

    /// The most hits ``nearestFirstOverHits(_:circle:)`` reads of a cell of the finest precision the index holds, which
    /// splitting would not narrow: more than any such cell (about 150 m square) holds listings.
    private static let finestCellHits = 1 << 20

    /// A keyword's candidate placed with the listings' points: its point's distance and packed id, and its rowid.
    private typealias Hit = (point: PointKey, rowid: Int64)

    /// The candidates among `rowids` whose points lie in `cell` (the index may read a wider one) and that `filter` keeps.
    private func place(_ rowids: [Int64], in points: ClassPoints, cell: Geohash, filter: PointFilter) -> [Hit] {
        let keys = cell.storageKeys
        return rowids.compactMap { rowid in
            guard let point = points.point(row: rowid), keys.contains(point.key), let key = filter.key(of: point) else { return nil }
            return (key, rowid)
        }
    }

    /// Moves into `found` the `pending` candidates (in order: by distance, then packed id) nearer than `distance` that
    /// match `keyword`, nearest first, until `found` holds `wanted`; the farther ones stay pending. A keyword that needs
    /// confirming reads the candidates' text in batches (each twice the last), counted in `confirmation`, until it has
    /// read ``confirming`` of them, and leaves out those whose text does not match; the others' candidates are all
    /// matches. Every candidate a later cell adds is at least `distance` away, so `found` stays in order.
    private func settle(
        _ pending: inout [Hit], into found: inout [PointKey], before distance: Double, wanted: Int, keyword: SearchQuery,
        _ confirmation: inout Confirmation, _ db: any SQLExecutor
    ) async throws {
        guard found.count < wanted else { return }
        let nearer = pending.prefix { $0.point.distance < distance }.count
        var (next, batch) = (0, SQLClassSearch.verificationBatch)
        while found.count < wanted, next < nearer, confirmation.count < confirming {
            let slice = pending[next..<(keyword.needsVerification ? min(next + batch, nearer) : nearer)]
            var matches: Set<Int64>?
            if keyword.needsVerification {
                matches = try await matching(slice.map(\.rowid), keyword: keyword, db)
                (confirmation.count, confirmation.last) = (confirmation.count + slice.count, slice.last?.point)
            }
            for hit in slice where found.count < wanted && matches?.contains(hit.rowid) ?? true {
                found.append(hit.point)
            }
            (next, batch) = (slice.endIndex, 2 * batch)
        }
        pending.removeFirst(next)
    }

    /// Which of the listings of `rowids` match `keyword`, confirmed on their text in one statement.
    private func matching(_ rowids: [Int64], keyword: SearchQuery, _ db: any SQLExecutor) async throws -> Set<Int64> {
        var statement: SQLStatement = """
            SELECT c.rowid AS row_key, c.name, c.description FROM classes c
            WHERE c.rowid IN (\(raw: rowids.map(String.init).joined(separator: ", ")))
            """
        // Texts holding a page's own rowids would fill SQLite's statement cache.
        statement.isCached = false
        var matches: Set<Int64> = []
        for row in try await db.rows(statement)
        where keyword.matches(ClassSearchDocument.text(name: try row["name"], description: try row["description"])) {
            matches.insert(try row["row_key"])
        }
        return matches
    }
}
