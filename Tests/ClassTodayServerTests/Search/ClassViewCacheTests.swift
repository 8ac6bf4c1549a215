import ClassTodayCore
import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayServer

/// The listings pages read from the points keep in memory (``ClassViewCache``): a page shows what the SQL walk's page
/// shows in the same snapshot, through every change to a listing or its writer, from this process or another, while
/// reading only the listings it has not shown before.
@Suite("Listings kept for the points' pages", .serialized, .sqliteOnly)
struct ClassViewCacheTests {
    typealias Fixture = SearchPropertyTests.Fixture

    /// The first page of `search` read from the points for `viewerId`, and how many statements read listings for it.
    static func firstPage(_ fixture: Fixture, _ search: ClassSearch, viewerId: String?, limit: Int) async throws -> (Page<ClassView>, viewReads: Int) {
        let searcher = SQLClassSearch(search: search, page: PageRequest(limit: limit), viewerId: viewerId, dialect: .sqlite)
        return try await fixture.store.database.read { db in
            let counting = ClassPointIndexTests.CellCounting(db, inMemory: true)
            return (try await searcher.run(counting), counting.viewReads)
        }
    }

    /// The names of the columns `pattern` (one capture) finds in `text`.
    static func columns(_ pattern: String, in text: String) throws -> [String] {
        let regex = try Regex(pattern).wordBoundaryKind(.default)
        return text.matches(of: regex).compactMap { $0.output[1].substring.map(String.init) }
    }

    @Test("a change to any column a page shows, the listing's or its writer's, logs each listing it shows on")
    func everyShownColumnIsLogged() async throws {
        let fixture = try await Fixture(seed: 20261129, count: 60)
        let db = fixture.store.database
        let select = ClassViewQuery.select(viewerId: nil, .sqlite, where: "1").sql
        let listingColumns = try Self.columns(#"\bc\.([a-z_]+)"#, in: ClassViewQuery.listingColumns).filter { $0 != "id" }
        let writerColumns = try Self.columns(#"\bu\.([a-z_]+)"#, in: select).filter { $0 != "id" }
        try #require(listingColumns.count > 15 && writerColumns.count >= 4, "\(listingColumns) \(writerColumns)")

        /// The listings the log names after running `statement`.
        func logged(by statement: SQLStatement) async throws -> Set<String> {
            let before: Int64 = try await db.rows("SELECT COALESCE(MAX(seq), 0) AS seq FROM class_point_changes")[0]["seq"]
            try await db.execute(statement)
            return Set(try await db.rows("SELECT class_id FROM class_point_changes WHERE seq > \(before)").map { try $0["class_id"] as String })
        }
        /// An expression giving `column` of `table` another value its constraints allow.
        func changed(_ column: String, of table: String) async throws -> String {
            switch column {
            case "type": return "CASE type WHEN 'buy' THEN 'sell' ELSE 'buy' END"
            case "status": return "CASE status WHEN 'open' THEN 'closed' ELSE 'open' END"
            case "writer_id": return "'\(fixture.writers[4])'"
            default:
                let type: String = try await db.rows("SELECT type FROM pragma_table_info(\(table)) WHERE name = \(column)")[0]["type"]
                switch type {
                case "TEXT": return "COALESCE(\(column), '') || 'x'"
                case "INTEGER": return "COALESCE(\(column), 0) + 1"
                default: return "COALESCE(\(column), 0) + 0.25"
                }
            }
        }

        let located = fixture.listings.filter { $0.location != nil && $0.writerId != fixture.writers[4] }
        for (index, column) in listingColumns.enumerated() {
            let id = located[index % located.count].id
            let ids = try await logged(by: "UPDATE classes SET \(raw: column) = \(raw: try await changed(column, of: "classes")) WHERE id = \(id)")
            #expect(ids == [id], "classes.\(column)")
        }
        let writer = fixture.writers[2]
        let shown = Set(try await db.rows("SELECT id FROM classes WHERE writer_id = \(writer) AND deleted_at IS NULL").map { try $0["id"] as String })
        try #require(!shown.isEmpty)
        for column in writerColumns {
            let ids = try await logged(by: "UPDATE users SET \(raw: column) = \(raw: try await changed(column, of: "users")) WHERE id = \(writer)")
            #expect(ids == shown, "users.\(column)")
        }
        // A write that changes nothing a page shows logs nothing.
        #expect(try await logged(by: "UPDATE classes SET seats_taken = seats_taken WHERE id = \(located[0].id)").isEmpty)
        #expect(try await logged(by: "UPDATE users SET nickname = nickname WHERE id = \(writer)").isEmpty)
    }

    @Test("a page read again reads no listing by statement, and shows every later change to its listings and writers, from this process or another")
    func followsChanges() async throws {
        let fixture = try await Fixture(seed: 20261130, count: 300)
        let seoul = SearchPropertyTests.hotspots[0]
        let search = ClassPointIndexTests.circle(seoul, radius: 30_000, status: nil)
        for viewer in [nil, fixture.viewer] {
            try await fixture.expectSamePages(search, viewerId: viewer, limit: 20, "first read")
            let (page, viewReads) = try await Self.firstPage(fixture, search, viewerId: viewer, limit: 20)
            #expect(page.items.count == 20 && viewReads == 0, "the page's listings were all kept")
        }
        let (page, _) = try await Self.firstPage(fixture, search, viewerId: fixture.viewer, limit: 20)
        let (first, second) = (page.items[0].listing, page.items[1].listing)
        let other = try SQLiteStore.open(path: fixture.folder + "/db.sqlite", durableCommits: false)
        let changes: [(String, () async throws -> Void)] = [
            ("renamed", { _ = try await fixture.repository.update(id: first.id, by: first.writerId) { $0.name = "새 이름 \(UUID())" } }),
            ("saved by the viewer", { try await fixture.repository.setFavorite(classId: second.id, userId: fixture.viewer, true) }),
            ("described by another process", {
                try await other.database.execute("UPDATE classes SET description = 'changed elsewhere', capacity = 3 WHERE id = \(second.id)")
            }),
            ("images set by another process", {
                try await other.database.execute(#"UPDATE classes SET image_ids = '["01M8M2VP3ES7NBQSW53FJZR2KV"]' WHERE id = \#(first.id)"#)
            }),
            ("writer renamed by another process", {
                try await other.database.execute("UPDATE users SET nickname = '바뀐 이름' WHERE id = \(first.writerId)")
            }),
            ("writer reviewed", {
                try await fixture.store.database.execute("UPDATE users SET rating_sum = rating_sum + 4.5, rating_count = rating_count + 1 WHERE id = \(second.writerId)")
            }),
            ("writer's picture set", {
                try await fixture.store.database.execute("UPDATE users SET profile_image_id = 'picture' WHERE id = \(second.writerId)")
            }),
            ("unsaved by the viewer", { try await fixture.repository.setFavorite(classId: second.id, userId: fixture.viewer, false) }),
        ]
        for (name, change) in changes {
            try await change()
            for viewer in [nil, fixture.viewer] {
                try await fixture.expectSamePages(search, viewerId: viewer, limit: 20, Comment(rawValue: name))
            }
        }
        let (after, _) = try await Self.firstPage(fixture, search, viewerId: fixture.viewer, limit: 20)
        let shown = Dictionary(uniqueKeysWithValues: after.items.map { ($0.listing.id, $0) })
        #expect(shown[first.id]?.listing.imageIds == ["01M8M2VP3ES7NBQSW53FJZR2KV"])
        #expect(shown[first.id]?.writer.nickname == "바뀐 이름")
        #expect(shown[second.id]?.listing.description == "changed elsewhere")
        #expect(shown[second.id]?.writer.profileImageId == "picture")
        #expect(shown[second.id]?.isFavorite == false && shown[second.id]?.listing.favoriteCount == 0)
    }

    @Test("a read in another snapshot than the cache's neither uses nor fills it; a catch-up drops what changed; a full cache starts again")
    func snapshots() async throws {
        let fixture = try await Fixture(seed: 20261131, count: 40)
        let db = fixture.store.database
        let rows = try await db.rows("SELECT rowid AS row_key, id FROM classes WHERE deleted_at IS NULL ORDER BY rowid LIMIT 6")
        let listings: [(id: UInt128, row: Int64)] = try rows.map { (try #require(Identifier.packed(try $0["id"])), try $0["row_key"]) }
        let ids: [String] = try rows.map { try $0["id"] }
        let cache = ClassViewCache(capacity: 4)
        let rowOf = Dictionary(uniqueKeysWithValues: listings.map { ($0.id, $0.row) })
        func read(_ wanted: ArraySlice<(id: UInt128, row: Int64)>, asOf change: Int64) async throws -> [ClassView] {
            try await db.read { db in try await cache.views(of: wanted.map(\.id), row: { rowOf[$0] }, asOf: change, viewerId: nil, db) }
        }
        func views(_ wanted: ArraySlice<(id: UInt128, row: Int64)>, asOf change: Int64) async throws -> Set<String> {
            Set(try await read(wanted, asOf: change).map(\.listing.id))
        }

        #expect(try await views(listings[0..<3], asOf: 7) == Set(ids[0..<3]))
        #expect(cache.count == 0, "a cache as of no change keeps nothing")
        cache.reset(to: 7)
        #expect(try await views(listings[0..<3], asOf: 6) == Set(ids[0..<3]))
        #expect(cache.count == 0, "a read in an older snapshot keeps nothing")
        #expect(try await views(listings[0..<3], asOf: 7) == Set(ids[0..<3]))
        #expect(cache.count == 3)
        // A listing renamed and the cache moved on: the renamed one is read again, the others are kept.
        try await db.execute("UPDATE classes SET name = 'renamed' WHERE id = \(ids[1])")
        cache.advance(to: 8, dropping: [ids[1], "not-a-listing-id"])
        #expect(cache.count == 2)
        #expect(try await read(listings[0..<3], asOf: 8).map(\.listing.name).filter { $0 == "renamed" }.count == 1)
        #expect(cache.count == 3)
        // Three more than the four it holds at most: it starts again with the three just read, each time.
        for _ in 0..<2 {
            #expect(try await views(listings[0..<6], asOf: 8) == Set(ids))
            #expect(cache.count == 3)
        }
    }

    @Test("under concurrent writes to listings, favourites and writers, a page read from the points is, in its snapshot, the SQL walk's page")
    func concurrentWrites() async throws {
        let fixture = try await Fixture(seed: 20261201, count: 400)
        let seoul = SearchPropertyTests.hotspots[0]
        let near = fixture.listings.filter { $0.location.map { Haversine.distance($0, seoul) < 30_000 } ?? false }
        try #require(near.count > 20)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var random = SeededRandom(seed: 41)
                for step in 0..<300 {
                    let listing = near.randomElement(using: &random)!
                    switch step % 4 {
                    case 0: _ = try await fixture.repository.update(id: listing.id, by: listing.writerId) { $0.name = "수업 \(step)" }
                    case 1: try await fixture.repository.setFavorite(classId: listing.id, userId: fixture.viewer, Bool.random(using: &random))
                    case 2: try await fixture.store.database.execute("UPDATE users SET nickname = \("작가 \(step)") WHERE id = \(listing.writerId)")
                    default: try await fixture.store.database.execute("UPDATE classes SET status = \(Bool.random(using: &random) ? "open" : "closed") WHERE id = \(listing.id)")
                    }
                }
            }
            for reader in 0..<2 {
                group.addTask {
                    var random = SeededRandom(seed: 50 + UInt64(reader))
                    for round in 0..<150 {
                        let center = GeoPoint(lat: seoul.lat + Double.random(in: -0.05...0.05, using: &random), lon: seoul.lon)
                        let search = ClassPointIndexTests.circle(center, radius: [2_000, 10_000, 30_000].randomElement(using: &random)!, status: nil)
                        let viewer = Bool.random(using: &random) ? fixture.viewer : nil
                        let searcher = SQLClassSearch(search: search, page: PageRequest(limit: 20), viewerId: viewer, dialect: .sqlite)
                        let (memory, walked) = try await fixture.store.database.read { db in
                            (try await searcher.run(ClassPointIndexTests.CellCounting(db, inMemory: true)),
                             try await searcher.run(ClassPointIndexTests.CellCounting(db, inMemory: false)))
                        }
                        #expect(memory.items == walked.items, "reader \(reader), round \(round)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(fixture.store.classPoints.viewCache.count > 0)
    }
}
