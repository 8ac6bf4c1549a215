import ClassTodayCore
import ClassTodayServer
import Foundation

extension SearchBenchmark {
    /// How many users the blocking viewer blocked: a heavy blocker (most users block none or a few).
    static let blockedUsers = 100

    /// What blocks add to a radius search: the same circles, nearest first, searched anonymously, by a signed-in
    /// viewer who blocked nobody, and by one who blocked ``blockedUsers`` writers of the dataset (the nearest ones to
    /// the first query, so that they are on its pages), one after the other per query, taking turns going first. Every blocking viewer's page is
    /// checked to hold none of the blocked writers' listings.
    func blockRows(centers: [GeoPoint]) async throws -> [String] {
        let (viewer, blocker, blocked) = try await prepareBlocks(near: centers[0])
        var lines = [
            "", "blocks: radius searches by a viewer who blocked \(blocked.count) writers (\(options.queries) queries per radius, interleaved)",
            "radius        anonymous p50/p99    viewer p50/p99       blocker p50/p99      blocker/viewer  blocked on pages",
        ]
        for radius in Self.circleRadii {
            var anonymous = LatencySample(), signedIn = LatencySample(), blocking = LatencySample()
            var leaked = 0
            for (index, center) in centers.enumerated() {
                let query = Self.nearestFirst(ClassSearch.Circle(center: center, radius: radius))
                // The three take turns going first, so that none is favoured by the caches the others warm.
                let order: [(String?, Int)] = [(nil, 0), (viewer, 1), (blocker, 2)]
                let first = index % order.count
                for (viewerId, sample) in order[first...] + order[..<first] {
                    let searcher = SQLClassSearch(search: query, page: PageRequest(limit: options.limit), viewerId: viewerId, dialect: .sqlite)
                    let start = ContinuousClock.now
                    let page = try await store.database.read { db in try await searcher.run(db) }
                    let elapsed = ContinuousClock.now - start
                    switch sample {
                    case 0: anonymous.record(elapsed)
                    case 1: signedIn.record(elapsed)
                    default:
                        blocking.record(elapsed)
                        leaked += page.items.filter { blocked.contains($0.listing.writerId) }.count
                    }
                }
            }
            func pair(_ sample: LatencySample) -> String {
                (LatencySample.format(sample.median) + " / " + LatencySample.format(sample.p99)).leftPadded(18)
            }
            lines.append("\(Int(radius)) m".padding(toLength: 10, withPad: " ", startingAt: 0) + pair(anonymous) + pair(signedIn) + pair(blocking)
                         + LatencySample.ratio(blocking.median / signedIn.median).leftPadded(16) + "\(leaked)".leftPadded(18))
        }
        return lines
    }

    /// Two seeded users as viewers, the second blocking the ``blockedUsers`` writers nearest `center` (kept in the
    /// benchmark database: blocking again changes nothing).
    private func prepareBlocks(near center: GeoPoint) async throws -> (viewer: String, blocker: String, blocked: Set<String>) {
        let database = store.database
        let users: [String] = try await database.rows("SELECT id FROM users ORDER BY id LIMIT 2").map { try $0["id"] }
        let query = Self.nearestFirst(ClassSearch.Circle(center: center, radius: 50_000))
        let searcher = SQLClassSearch(search: query, page: PageRequest(limit: 20 * Self.blockedUsers), viewerId: nil, dialect: .sqlite)
        var blocked: [String] = []
        for writer in try await database.read({ db in try await searcher.run(db) }).items.map(\.listing.writerId)
        where !users.contains(writer) && !blocked.contains(writer) {
            blocked.append(writer)
        }
        blocked = Array(blocked.prefix(Self.blockedUsers))
        try await database.transaction { db in
            for writer in blocked {
                try await db.execute("INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (\(users[1]), \(writer), 0) ON CONFLICT DO NOTHING")
            }
        }
        return (users[0], users[1], Set(blocked))
    }
}
