import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import Testing
@testable import ClassTodayServer

/// ``PostgresStore/clusterClasses(lockTimeout:)``: the listings rewritten in the order of their geohashes, what the
/// schema sets up for it, and a rewrite that gives up rather than queue every request behind it. Runs only when
/// `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("PostgresCluster: listings rewritten in location order", .postgresOnly)
struct PostgresClusterTests {
    /// A store holding 400 random listings in the order they were written, for `body`, closed afterwards.
    private func withListings(seed: UInt64, _ body: (PostgresStore, SQLClassRepository, [ClassListing]) async throws -> Void) async throws {
        let (store, repository, listings) = try await PostgresSearchTests.storeHolding(writers: 5, seed: seed) { writers, random in
            SearchPropertyTests.randomListings(count: 400, writers: writers, random: &random)
        }
        defer { store.close() }
        try await body(store, repository, listings)
    }

    /// The listings' geohashes in the order of their rows in the table (NULL for a listing without a place).
    private func geohashesInTableOrder(_ store: PostgresStore) async throws -> [String?] {
        try await store.database.rows("SELECT geohash FROM classes ORDER BY ctid").map { try $0["geohash"] }
    }

    /// Whether `geohashes` ascend, the listings without a place last (a B-tree's order of NULLs).
    private func ascend(_ geohashes: [String?]) -> Bool {
        let placed = geohashes.prefix { $0 != nil }.compactMap { $0 }
        return geohashes.dropFirst(placed.count).allSatisfy { $0 == nil } && placed == placed.sorted()
    }

    @Test("the schema keeps a tenth of each table page free and marks the geohash index as the one to cluster on")
    func schema() async throws {
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        let store = try PostgresStore.open(url: url, logger: PostgresSearchTests.logger)
        defer { store.close() }
        let options: String? = try await store.database.row("SELECT array_to_string(reloptions, ',') AS options FROM pg_class WHERE relname = 'classes'")?["options"]
        #expect(options == "fillfactor=90")
        let clustered: [String] = try await store.database.rows("""
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'classes'::regclass AND i.indisclustered
            """).map { try $0["relname"] }
        #expect(clustered == ["classes_by_geohash"])
    }

    @Test("clustering rewrites the listings in the order of their geohashes, and every page of a search stays the same")
    func rowsFollowGeohashes() async throws {
        try await withListings(seed: 31) { store, repository, _ in
            #expect(!ascend(try await geohashesInTableOrder(store)))
            let before = try #require(try await store.classesLocationOrder())
            var random = SeededRandom(seed: 32)
            let searches = (0..<12).map { _ in PostgresSearchTests.randomSearch(&random) }
            var pagesBefore: [[[String]]] = []
            for search in searches {
                pagesBefore.append(try await PostgresSearchTests.pages(search, limit: 7, repository).map { $0.map(\.listing.id) })
            }

            try await store.clusterClasses(lockTimeout: .seconds(5))

            #expect(ascend(try await geohashesInTableOrder(store)))
            let after = try #require(try await store.classesLocationOrder())
            #expect(before < 0.5 && after > 0.99, "correlation \(before) before, \(after) after")
            for (search, pages) in zip(searches, pagesBefore) {
                #expect(try await PostgresSearchTests.pages(search, limit: 7, repository).map { $0.map(\.listing.id) } == pages, "\(search)")
            }
        }
    }

    @Test("after clustering, counting a favourite and changing the status leave its row on its table page, among its neighbours")
    func updatesStayOnTheirPage() async throws {
        try await withListings(seed: 33) { store, repository, listings in
            try await store.clusterClasses(lockTimeout: .seconds(5))
            // The first page of the table: full when the table keeps no room, so that a new version would go elsewhere.
            let first = try #require(try await store.database.row("SELECT id, writer_id, status, (ctid::text::point)[0] AS page FROM classes ORDER BY ctid LIMIT 1"))
            let (id, writer): (String, String) = (try first["id"], try first["writer_id"])
            let page: Double = try first["page"]
            func now() async throws -> SQLRow {
                try #require(try await store.database.row("SELECT favorite_count, status, (ctid::text::point)[0] AS page FROM classes WHERE id = \(id)"))
            }
            try await repository.setFavorite(classId: id, userId: try #require(listings.first { $0.writerId != writer }?.writerId), true)
            let favourited = try await now()
            #expect(try favourited["favorite_count"] as Int == 1)
            #expect(try favourited["page"] as Double == page)
            let status: ClassStatus = try first["status"] as String == ClassStatus.closed.rawValue ? .open : .closed
            _ = try await repository.update(id: id, by: writer) { $0.status = status }
            let changed = try await now()
            #expect(try changed["status"] as String == status.rawValue)
            #expect(try changed["page"] as Double == page)
        }
    }

    @Test("a transaction using the listings makes clustering give up after its lock timeout, leaving the table as it was")
    func givesUpOnBusyTable() async throws {
        try await withListings(seed: 34) { store, _, _ in
            let order = try await geohashesInTableOrder(store)
            try await store.database.read { db in
                _ = try await db.rows("SELECT id FROM classes LIMIT 1")
                let start = ContinuousClock.now
                await #expect(throws: PostgresStore.ClassesTableBusy.self) {
                    try await store.clusterClasses(lockTimeout: .milliseconds(300))
                }
                #expect(ContinuousClock.now - start < .seconds(10))
            }
            #expect(try await geohashesInTableOrder(store) == order)
        }
    }
}
