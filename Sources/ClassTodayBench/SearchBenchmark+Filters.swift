import ClassTodayCore
import ClassTodayServer

extension SearchBenchmark {
    /// The filtered circle rows (``Kind/filters``): each query read from the listings' points in memory (as the server
    /// reads it on SQLite), then again from the points and walked with SQL, and asked of PostgreSQL when it is there.
    func filterRows(centers: [GeoPoint]) async throws -> [Row] {
        let subjects = Subject.allCases
        return [
            try await filterRow("subject + 10 km", radius: 10_000, centers: centers) { search, index in
                search.subjects = [subjects[index % subjects.count]]
            },
            try await filterRow("price floor + 3 km", radius: 3_000, centers: centers) { search, _ in
                search.minPrice = 100_000
            },
            try await filterRow("rare filters + 50 km", radius: 50_000, centers: centers) { search, _ in
                (search.subjects, search.targets, search.days, search.maxPrice) = ([.major], [.senior], [.sun], 5_000)
            },
        ]
    }

    /// A row of circles of `radius` around `centers`, nearest first, each with the filters `filter` sets for its index.
    private func filterRow(
        _ label: String, radius: Double, centers: [GeoPoint], filter: (inout ClassSearch, Int) -> Void
    ) async throws -> Row {
        var indexed = LatencySample(), fromPoints = LatencySample(), walked = LatencySample()
        var postgresSample = postgres.map { PostgresSample(store: $0, sqlite: store.database, limit: options.limit, logger: logger) }
        var candidates = 0, results = 0, walkedDiffering = 0
        for (index, center) in centers.enumerated() {
            var query = Self.nearestFirst(ClassSearch.Circle(center: center, radius: radius))
            filter(&query, index)
            let searcher = search(query)
            let answer = try await timedPage(searcher)
            indexed.record(answer.elapsed)
            results += answer.page.items.count
            let (again, walk) = try await readBothWays(searcher, walkFirst: index % 2 == 1)
            fromPoints.record(again.elapsed)
            walked.record(walk.elapsed)
            if walk.page.items.map(\.listing.id) != answer.page.items.map(\.listing.id) { walkedDiffering += 1 }
            candidates += try await countRows(in: walk.readRanges)
            try await postgresSample?.record(query, sqlitePage: answer.page, fullScan: false)
        }
        return Row(kind: label, indexed: indexed, candidatesPerResult: Double(candidates) / Double(max(results, 1)), fullScan: LatencySample(),
                   rtree: nil, postgres: postgresSample, walked: (fromPoints, walked, walkedDiffering))
    }
}
