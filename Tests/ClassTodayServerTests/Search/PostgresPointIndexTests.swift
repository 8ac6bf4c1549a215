import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import Synchronization
import Testing
@testable import ClassTodayServer

/// Each PostgreSQL node's listings' points in memory (``ClassPointIndex``): they follow the writes of every node, the
/// log numbering changes in commit order without a gap whatever commits, waits or rolls back, and plain circles read
/// from them give the pages of the nearest-first index. Runs only when `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("PostgresPoints: each node's listings' points in memory follow every node's writes", .serialized,
       .enabled(if: PostgresTestDatabase.serverURL != nil))
struct PostgresPointIndexTests {
    /// Two nodes on one fresh migrated database, with `count` random listings of five writers created through the first.
    final class Nodes: Sendable {
        let first: PostgresStore
        let second: PostgresStore
        let writers: [String]
        let listings: [ClassListing]

        init(count: Int, seed: UInt64) async throws {
            let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
            first = try PostgresStore.open(url: url, logger: PostgresSearchTests.logger)
            second = try PostgresStore.open(url: url, logger: PostgresSearchTests.logger)
            writers = try await PostgresSearchTests.insertUsers(5, first)
            var random = SeededRandom(seed: seed)
            let repository = SQLClassRepository(database: first.database)
            let made = SearchPropertyTests.randomListings(count: count, writers: writers, random: &random)
            let created = Mutex<[ClassListing]>([])
            try await PostgresSearchTests.forEachConcurrently(made) { listing in
                let listing = try await repository.create(listing).listing
                created.withLock { $0.append(listing) }
            }
            listings = created.withLock { $0 }
            try await first.database.execute("ANALYZE classes")
        }

        deinit {
            first.close()
            second.close()
        }

        var stores: [PostgresStore] { [first, second] }
    }

    /// Counts the statements that read a page in the nearest-first index's order (they name its expression, `cube(`).
    final class IndexPageCounting: SQLExecutor {
        private let base: any SQLExecutor
        private let reads = Mutex(0)

        init(_ base: any SQLExecutor) {
            self.base = base
        }

        var indexPageReads: Int { reads.withLock { $0 } }
        var dialect: SQLDialect { base.dialect }
        var classPoints: ClassPointIndex? { base.classPoints }

        func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
            if statement.sql.contains("cube(") { reads.withLock { $0 += 1 } }
            return try await base.rows(statement)
        }

        func execute(_ statement: SQLStatement) async throws -> Int {
            try await base.execute(statement)
        }
    }

    /// The points `store` holds as of a new snapshot, read first if they never were.
    static func points(_ store: PostgresStore) async throws -> ClassPoints {
        try #require(try await store.database.read { db in try await store.classPoints.points(db) })
    }

    /// Checks that `search`'s pages, `limit` at a time, read on `store` from its points are those of the nearest-first
    /// index (the search run without a snapshot, which lends no points), and that no page read the index.
    static func expectSamePages(_ search: ClassSearch, on store: PostgresStore, limit: Int, _ comment: Comment) async throws {
        var request = PageRequest(limit: limit)
        for _ in 0..<40 {
            let searcher = SQLClassSearch(search: search, page: request, viewerId: nil, dialect: .postgres)
            let (fromPoints, indexReads) = try await store.database.read { db in
                let counting = IndexPageCounting(db)
                return (try await searcher.run(counting), counting.indexPageReads)
            }
            let byIndex = try await searcher.run(store.database)
            #expect(fromPoints.items.map(\.listing.id) == byIndex.items.map(\.listing.id), comment)
            #expect(fromPoints.items.map(\.distance) == byIndex.items.map(\.distance), comment)
            #expect(indexReads == 0, "the points answered: \(comment)")
            guard let next = fromPoints.nextCursor else {
                #expect(byIndex.nextCursor == nil, comment)
                return
            }
            request = PageRequest(limit: limit, after: try PageCursor.decode(next, ordering: search.sort.rawValue))
        }
    }

    /// Checks that `store`'s points hold exactly the listings neither deleted nor hidden with a place, where they are.
    static func expectHoldsEveryListing(_ store: PostgresStore, _ comment: Comment) async throws {
        let points = try await points(store)
        let rows = try await store.database.rows("""
            SELECT id, lat, lon, status, type FROM classes WHERE deleted_at IS NULL AND hidden_at IS NULL AND lat IS NOT NULL
            """)
        #expect(points.count == rows.count, comment)
        var held: [UInt128: ClassPoints.Point] = [:]
        for first in "0123456789bcdefghjkmnpqrstuvwxyz" {
            points.forEach(in: try #require(Geohash(string: String(first)))) { held[$0.id] = $0 }
        }
        for row in rows {
            let point = held[try #require(Identifier.packed(try row["id"]))]
            let (lat, lon, status, type): (Double, Double, String, String) = (try row["lat"], try row["lon"], try row["status"], try row["type"])
            #expect(point?.lat == lat && point?.lon == lon && point?.status.rawValue == status && point?.type.rawValue == type, comment)
        }
    }

    /// A plain nearest-first circle of any status.
    static func circle(_ center: GeoPoint, radius: Double, status: ClassStatus? = nil) -> ClassSearch {
        ClassPointIndexTests.circle(center, radius: radius, status: status)
    }

    @Test("writes from two nodes at once, on the same listings too, and rolled-back ones: the log has no gap and both nodes' points and pages follow")
    func followsEveryNodesWrites() async throws {
        let nodes = try await Nodes(count: 600, seed: 20261127)
        let seoul = SearchPropertyTests.hotspots[0]
        for store in nodes.stores {
            try await Self.expectSamePages(Self.circle(seoul, radius: 50_000), on: store, limit: 7, "first read")
        }
        // Creates, moves, closes, hides and deletes, eight at a time from each node, some on the same listings.
        var random = SeededRandom(seed: 7)
        let shuffled = nodes.listings.shuffled(using: &random)
        // Each target is moved, closed, and then hidden, deleted or changed and rolled back; others are hidden alone.
        let (targets, others) = (Array(shuffled.prefix(60)), Array(shuffled.dropFirst(60).prefix(20)))
        let fresh = SearchPropertyTests.randomListings(count: 40, writers: nodes.writers, random: &random)
        enum Write: Sendable {
            case create(ClassListing), move(ClassListing, GeoPoint), close(ClassListing), hide(ClassListing), delete(ClassListing)
            case rolledBack(ClassListing)
        }
        var writes: [(node: Int, write: Write)] = fresh.map { (Int.random(in: 0...1, using: &random), .create($0)) }
        for (index, listing) in targets.enumerated() {
            let node = index % 2
            writes.append((node, .move(listing, random.point(near: seoul, spread: 0.05))))
            writes.append((1 - node, .close(listing)))
            switch index % 4 {
            case 0: writes += [(node, .hide(listing)), (1 - node, .hide(others[index / 4]))]
            case 1: writes.append((node, .delete(listing)))
            default: writes.append((1 - node, .rolledBack(listing)))
            }
        }
        writes.shuffle(using: &random)
        struct Abandoned: Error {}
        let stores = nodes.stores
        try await PostgresSearchTests.forEachConcurrently(writes, width: 16) { node, write in
            let store = stores[node]
            let repository = SQLClassRepository(database: store.database)
            switch write {
            case .create(let listing): _ = try await repository.create(listing)
            case .move(let listing, let point):
                _ = try? await repository.update(id: listing.id, by: listing.writerId) { $0.location = point }
            case .close(let listing):
                _ = try? await repository.update(id: listing.id, by: listing.writerId) { $0.status = .closed }
            case .hide(let listing):
                try await store.database.execute("UPDATE classes SET hidden_at = 1 WHERE id = \(listing.id)")
            case .delete(let listing): try? await repository.delete(id: listing.id, by: listing.writerId)
            case .rolledBack(let listing):
                await #expect(throws: Abandoned.self) {
                    try await store.database.transaction { db in
                        try await db.execute("UPDATE classes SET lat = 0, lon = 0, status = 'matched' WHERE id = \(listing.id)")
                        throw Abandoned()
                    }
                }
            }
        }
        let log = try await nodes.first.database.rows("SELECT COUNT(*) AS changes, MIN(seq) AS first, MAX(seq) AS last FROM class_point_changes")[0]
        let (changes, first, last): (Int, Int, Int) = (try log["changes"], try log["first"], try log["last"])
        #expect(last - first + 1 == changes, "numbered without a gap")
        #expect(changes >= nodes.listings.count + fresh.count + targets.count)
        for (index, store) in nodes.stores.enumerated() {
            try await Self.expectHoldsEveryListing(store, "node \(index) after the writes")
            for radius in [2_000.0, 50_000] {
                for status in [nil, ClassStatus.open] {
                    try await Self.expectSamePages(Self.circle(seoul, radius: radius, status: status), on: store, limit: 9,
                                                   "node \(index), \(radius) m, \(status.map(\.rawValue) ?? "any")")
                }
            }
        }
    }

    @Test("a write waiting for another's row lock, whose own writer waits for it, does not deadlock on the log: both commit, numbered as they do")
    func noDeadlockWithRowLocks() async throws {
        let nodes = try await Nodes(count: 20, seed: 20261129)
        let (x, y) = (nodes.listings[0].id, nodes.listings[1].id)
        try await nodes.first.database.execute("UPDATE classes SET status = 'open' WHERE id IN (\(x), \(y))")
        let before = try await Self.points(nodes.first).change
        let (locked, lockedSignal) = AsyncStream<Void>.makeStream()
        // The first node locks x, then changes it once the second node has changed y and waits for x.
        async let first: Void = nodes.first.database.transaction { db in
            _ = try await db.rows("SELECT id FROM classes WHERE id = \(x) FOR UPDATE")
            lockedSignal.finish()
            try await Task.sleep(for: .milliseconds(500))
            try await db.execute("UPDATE classes SET status = 'closed' WHERE id = \(x)")
        }
        for await _ in locked {}
        try await nodes.second.database.transaction { db in
            try await db.execute("UPDATE classes SET status = 'matched' WHERE id = \(y)")
            try await db.execute("UPDATE classes SET status = 'matched' WHERE id = \(x)")
        }
        try await first
        let changes = try await nodes.second.database.rows("SELECT class_id FROM class_point_changes WHERE seq > \(before) ORDER BY seq")
        #expect(try changes.map { try $0["class_id"] as String } == [x, y, x])
        for store in nodes.stores {
            try await Self.expectHoldsEveryListing(store, "after both commits")
        }
    }

    @Test("the log keeps the last 10,000 changes, and a node further behind reads its points again whole")
    func readsAgainAfterAGap() async throws {
        let nodes = try await Nodes(count: 400, seed: 20261128)
        let seoul = SearchPropertyTests.hotspots[0]
        let behind = try await Self.points(nodes.second)
        // 25 statements of 400 changes each, through the first node alone.
        for round in 0..<26 {
            try await nodes.first.database.execute("UPDATE classes SET status = \(round % 2 == 0 ? "closed" : "open")")
        }
        let log = try await nodes.first.database.rows("SELECT COUNT(*) AS kept, MAX(seq) - MIN(seq) AS span FROM class_point_changes")[0]
        #expect(try log["kept"] as Int == 10_000)
        #expect(try log["span"] as Int == 9_999)
        #expect(behind.count == 400 - nodes.listings.filter { $0.location == nil }.count)
        try await Self.expectHoldsEveryListing(nodes.second, "read again whole")
        try await Self.expectSamePages(Self.circle(seoul, radius: 50_000, status: .open), on: nodes.second, limit: 11, "after the gap")
        #expect(try await Self.points(nodes.second).heldBytes == 80 * behind.count, "no rowid copy on PostgreSQL")
    }
}
