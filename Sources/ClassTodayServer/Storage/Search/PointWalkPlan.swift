import ClassTodayCore
import Foundation

/// ``SearchPlanName/pointWalk``: a page by distance within a circle, with no keyword or district, walked over the
/// listings' points the backend keeps in memory (``ClassPointIndex``: SQLite's); only the page's listings are read
/// with a statement. Chosen where the backend keeps the points; fast there because the cells are read from memory and
/// every filter but a district is checked on the points themselves, with no statement per cell. It declines when the
/// page's cursor is not one of the points' pages.
struct PointWalkPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let circle = search.circle, let index = db.classPoints,
              let walked = try await nearestFirstInMemory(db, index, circle: circle)
        else { return nil }
        // The points know each listing's rowid: those the cache does not keep are read by it, with no probe of the ids'
        // index.
        let ids = walked.keys.prefix(page.limit).map(\.id)
        let views = try await index.viewCache.views(of: ids, row: walked.points.row(of:), asOf: walked.points.change, viewerId: viewerId, db)
        return page(of: walked.keys.map(SearchKey.init(point:)), views: views)
    }

    /// The keys of a nearest-first page read from the listings' points in memory (`index`, the read's
    /// ``SQLExecutor/classPoints``): the walk of ``nearestFirst(_:circle:)``, each cell read from memory and split while
    /// more of its points may pass the search's filters than a cell read with a statement may hold (``PassingShare``). The points hold every filter but
    /// a district: a walk with statements read the listings a filter leaves out from the table, up to its budget, and
    /// `subjects=major&targets=senior&days=sun&maxPrice=5000` within 50 km of Seoul's city hall took 150-230 ms a page
    /// of 5 on 1,000,000 classes over HTTP (now 4.4-6.0 ms a page of 20). Nil when the points cannot answer: the search
    /// has a keyword or a district, its cursor is not one of their pages', or they cannot answer this read. Returned
    /// with the points walked.
    private func nearestFirstInMemory(
        _ db: any SQLExecutor, _ index: ClassPointIndex, circle: ClassSearch.Circle
    ) async throws -> (keys: [PointKey], points: ClassPoints)? {
        guard search.keyword == nil, search.keywordLocation == nil, let points = try await index.points(db),
              let filter = try await pointFilter(points, circle: circle, db)
        else { return nil }
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var nearest = NearestFirstPage<PointKey, UInt128>(wanted: page.limit + 1, distance: { $0.distance }, id: { $0.id })
        var passing = PassingShare()
        while let entry = walk.popNearest(), !nearest.settle(before: entry.minimumDistance) {
            let count = points.count(in: entry.cell)
            if entry.cell.precision < Geohash.storagePrecision, passing.expected(of: count) > Double(CellCandidates.crowdedCell) {
                walk.split(entry)
                continue
            }
            var (found, passed): ([PointKey], Int) = ([], 0)
            points.forEach(in: entry.cell) { point in
                guard filter.passes(point) else { return }
                passed += 1
                if let key = filter.place(of: point) { found.append(key) }
            }
            passing.add(passed, of: count)
            trace?.examined(count)
            nearest.add(found)
        }
        return (nearest.finish(), points)
    }

    /// The share of the points the in-memory walk has read that pass the search's filters, which sizes the cells it
    /// reads whole: a cell is split while more of its points may pass than a cell read with a statement may hold
    /// (``CellCandidates/crowdedCell``). Splitting a cell costs more than passing over a point a filter leaves out:
    /// split down to 64 points whatever passed, `subjects=major&targets=senior&days=sun&maxPrice=5000` within 50 km of
    /// Seoul's city hall took 33-42 ms a page on 1,000,000 classes.
    private struct PassingShare {
        private var read = 0
        private var passed = 0

        /// How many of `count` points may pass: all of them until the walk has read some.
        func expected(of count: Int) -> Double {
            Double(count) * Double(passed + 1) / Double(read + 1)
        }

        /// Notes a cell of `count` points of which `passed` passed.
        mutating func add(_ passed: Int, of count: Int) {
            (read, self.passed) = (read + count, self.passed + passed)
        }
    }
}
