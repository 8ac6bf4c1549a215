import ClassTodayCore
import Foundation
import ClassTodayTestSupport
import Logging
import Synchronization
import Testing
@testable import ClassTodayServer

/// SQLite's listings' points in memory (``ClassPointIndex``): nearest-first pages read from them are the SQL walk's
/// pages, page by page, and they follow every write, from this process or another, in the reader's own snapshot.
@Suite("Listings' points in memory", .serialized, .sqliteOnly)
struct ClassPointIndexTests {
    typealias Fixture = SearchPropertyTests.Fixture

    /// Runs statements on a read's executor, lending its points only when `inMemory`, and counts the walk's cell reads
    /// and the statements reading listings' views.
    final class CellCounting: SQLExecutor {
        private let base: any SQLExecutor
        private let inMemory: Bool
        private let reads = Mutex((cells: 0, views: 0))

        init(_ base: any SQLExecutor, inMemory: Bool) {
            (self.base, self.inMemory) = (base, inMemory)
        }

        var cellReads: Int { reads.withLock { $0.cells } }
        var viewReads: Int { reads.withLock { $0.views } }
        var dialect: SQLDialect { base.dialect }
        var classPoints: ClassPointIndex? { inMemory ? base.classPoints : nil }

        func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
            if statement.sql.contains("cell_read") { reads.withLock { $0.cells += 1 } }
            if statement.sql.contains("JOIN users u") { reads.withLock { $0.views += 1 } }
            return try await base.rows(statement)
        }

        func execute(_ statement: SQLStatement) async throws -> Int {
            try await base.execute(statement)
        }
    }

    /// A plain nearest-first circle around `center`.
    static func circle(_ center: GeoPoint, radius: Double, status: ClassStatus? = .open, type: ClassType? = nil) -> ClassSearch {
        var search = ClassSearch()
        search.circle = .init(center: center, radius: radius)
        search.sort = .distance
        search.status = status
        search.type = type
        return search
    }

    @Test("random circles read from the points give the SQL walk's pages, page by page, with any status, type, viewer and page size, and in half of them subjects, targets, days, prices or a box")
    func sameAsSQLWalk() async throws {
        let fixture = try await Fixture(seed: 20261125, count: 3000)
        var random = SeededRandom(seed: 11)
        for round in 0..<160 {
            let hotspot = SearchPropertyTests.hotspots.randomElement(using: &random)!
            let center = GeoPoint(lat: min(90, max(-90, hotspot.lat + Double.random(in: -0.3...0.3, using: &random))),
                                  lon: max(-180, min(180, hotspot.lon + Double.random(in: -0.3...0.3, using: &random))))
            var search = Self.circle(center, radius: [10.0, 500, 3000, 20_000, 50_000, 20_000_000].randomElement(using: &random)!,
                                     status: [.open, nil, .closed, .matched].randomElement(using: &random)!,
                                     type: [nil, .buy, .sell].randomElement(using: &random)!)
            if round.isMultiple(of: 2) { Self.addRandomFilters(to: &search, using: &random) }
            try await fixture.expectSamePages(search, viewerId: Bool.random(using: &random) ? fixture.viewer : nil,
                                              limit: [1, 7, 20, 100].randomElement(using: &random)!, "round \(round): \(search)")
        }
    }

    /// Gives `search` some of subjects, targets, days, a price range and a box around its circle's centre, at random.
    static func addRandomFilters(to search: inout ClassSearch, using random: inout SeededRandom) {
        if Bool.random(using: &random) {
            search.subjects = Array(Subject.allCases.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)))
        }
        if Bool.random(using: &random) {
            search.targets = Array(Target.allCases.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
        }
        if Bool.random(using: &random) { search.days = [Weekday.allCases.randomElement(using: &random)!] }
        if Bool.random(using: &random) { search.minPrice = Int.random(in: 0...60_000, using: &random) }
        if Bool.random(using: &random) { search.maxPrice = Int.random(in: 20_000...100_000, using: &random) }
        if let center = search.circle?.center, Int.random(in: 0..<4, using: &random) == 0 {
            let half = Double.random(in: 0.01...0.3, using: &random)
            search.box = GeoBoundingBox(minLat: center.lat - half, maxLat: center.lat + half / 2,
                                        minLon: center.lon - half / 2, maxLon: center.lon + half)
        }
    }

    @Test("the points follow a listing's price, subjects, targets and days, changed through the repository or by another process")
    func followsFilteredColumns() async throws {
        let fixture = try await Fixture(seed: 20261127, count: 300)
        let seoul = SearchPropertyTests.hotspots[0]
        var random = SeededRandom(seed: 19)
        var listing = SearchPropertyTests.randomListings(count: 1, writers: fixture.writers, random: &random)[0]
        (listing.location, listing.status, listing.price, listing.subjects, listing.targets, listing.days) =
            (seoul, .open, 10_000, [.math], [.senior], [.mon])
        let created = try await fixture.repository.create(listing).listing
        func nearest(_ search: ClassSearch) async throws -> String? {
            try await fixture.repository.search(search, viewerId: nil, page: PageRequest(limit: 1)).items.first?.listing.id
        }
        var byPrice = Self.circle(seoul, radius: 50_000)
        byPrice.minPrice = 20_000
        #expect(try await nearest(byPrice) != created.id)
        try await fixture.expectSamePages(byPrice, "price below")
        _ = try await fixture.repository.update(id: created.id, by: created.writerId) { $0.price = 30_000 }
        #expect(try await nearest(byPrice) == created.id)
        try await fixture.expectSamePages(byPrice, "price raised")

        // Through another connection pool on the same file, each column with its JSON list.
        let other = try SQLiteStore.open(path: fixture.folder + "/db.sqlite", durableCommits: false)
        var bySubject = Self.circle(seoul, radius: 50_000)
        bySubject.subjects = [.english]
        #expect(try await nearest(bySubject) != created.id)
        try await other.database.execute("""
            UPDATE classes SET subjects = '["english"]', subjects_mask = \(BitMask.of([Subject.english])) WHERE id = \(created.id)
            """)
        #expect(try await nearest(bySubject) == created.id)
        try await fixture.expectSamePages(bySubject, "subjects changed by another process")

        var byTargetAndDay = Self.circle(seoul, radius: 50_000)
        (byTargetAndDay.targets, byTargetAndDay.days) = ([.senior], [.mon])
        #expect(try await nearest(byTargetAndDay) == created.id)
        try await other.database.execute("""
            UPDATE classes SET days = '["tue"]', days_mask = \(BitMask.of([Weekday.tue])) WHERE id = \(created.id)
            """)
        #expect(try await nearest(byTargetAndDay) != created.id)
        try await fixture.expectSamePages(byTargetAndDay, "days changed by another process")
        try await other.database.execute("""
            UPDATE classes SET days = '["mon"]', days_mask = \(BitMask.of([Weekday.mon])), targets = '["junior"]',
                targets_mask = \(BitMask.of([Target.junior])) WHERE id = \(created.id)
            """)
        #expect(try await nearest(byTargetAndDay) != created.id)
        try await fixture.expectSamePages(byTargetAndDay, "targets changed by another process")

        try await other.database.execute("UPDATE classes SET price = NULL WHERE id = \(created.id)")
        #expect(try await nearest(byPrice) != created.id)
        try await fixture.expectSamePages(byPrice, "price removed by another process")
    }

    @Test("the points follow listings created, moved, closed, hidden, deleted and written by another process")
    func followsWrites() async throws {
        let fixture = try await Fixture(seed: 20261125, count: 400)
        let seoul = SearchPropertyTests.hotspots[0]
        let search = Self.circle(seoul, radius: 20_000, status: nil)
        try await fixture.expectSamePages(search, "first read")
        let points = fixture.store.classPoints

        // Through the repository, in this process.
        var random = SeededRandom(seed: 3)
        let listing = SearchPropertyTests.randomListings(count: 1, writers: fixture.writers, random: &random)[0]
        var near = listing
        near.location = seoul
        let created = try await fixture.repository.create(near).listing
        var first = try await fixture.repository.search(search, viewerId: nil, page: PageRequest(limit: 1))
        #expect(first.items.map(\.listing.id) == [created.id])
        try await fixture.expectSamePages(search, "created")

        _ = try await fixture.repository.update(id: created.id, by: created.writerId) { $0.location = GeoPoint(lat: seoul.lat + 0.15, lon: seoul.lon) }
        first = try await fixture.repository.search(search, viewerId: nil, page: PageRequest(limit: 1))
        #expect(first.items.map(\.listing.id) != [created.id])
        try await fixture.expectSamePages(search, "moved")

        _ = try await fixture.repository.update(id: created.id, by: created.writerId) { $0.status = .closed }
        try await fixture.expectSamePages(Self.circle(seoul, radius: 20_000, status: .open), "closed")
        try await fixture.expectSamePages(Self.circle(seoul, radius: 20_000, status: .closed), "closed")

        // Through another connection pool on the same file, as `classtoday admin` or `seed` would write.
        let other = try SQLiteStore.open(path: fixture.folder + "/db.sqlite", durableCommits: false)
        let hidden = try await other.database.rows("SELECT id FROM classes WHERE lat IS NOT NULL ORDER BY id LIMIT 30").map { try $0["id"] as String }
        try await other.database.execute("UPDATE classes SET hidden_at = 1 WHERE id IN \(SQLDialect.sqlite.list(hidden))")
        try await fixture.expectSamePages(search, "hidden by another process")
        try await other.database.execute("""
            UPDATE classes SET lat = NULL, lon = NULL, geohash = NULL WHERE id IN (SELECT id FROM classes ORDER BY id DESC LIMIT 20)
            """)
        try await fixture.expectSamePages(search, "location removed by another process")
        for (index, id) in hidden.suffix(5).enumerated() {
            let moved = GeoPoint(lat: seoul.lat + 0.001 * Double(index), lon: seoul.lon - 0.002)
            try await other.database.execute("""
                UPDATE classes SET lat = \(moved.lat), lon = \(moved.lon), geohash = \(Geohash(moved, precision: Geohash.storagePrecision).string)
                WHERE id = \(id)
                """)
        }
        try await fixture.expectSamePages(search, "moved by another process")
        try await other.database.execute("UPDATE classes SET hidden_at = NULL WHERE id IN \(SQLDialect.sqlite.list(Array(hidden.prefix(10))))")
        try await fixture.expectSamePages(search, "shown again by another process")

        try await fixture.repository.delete(id: created.id, by: created.writerId)
        let removed: String = try await other.database.rows("""
            SELECT id FROM classes WHERE lat IS NOT NULL AND hidden_at IS NULL AND deleted_at IS NULL ORDER BY id LIMIT 1
            """)[0]["id"]
        try await other.database.transaction { db in
            try await db.execute("DELETE FROM alert_outbox WHERE class_id = \(removed)")
            try await db.execute("DELETE FROM classes WHERE id = \(removed)")
        }
        try await fixture.expectSamePages(search, "deleted")

        let held = try await fixture.store.database.rows("""
            SELECT COUNT(*) AS held FROM classes WHERE lat IS NOT NULL AND hidden_at IS NULL AND deleted_at IS NULL
            """)[0]["held"] as Int
        let after = try #require(try await fixture.store.database.read { db in try await points.points(db) })
        #expect(after.count == held)

        // Each listing is found by its rowid too (a keyword index's hit), where its row puts it, unless not held.
        let rows = try await fixture.store.database.rows("""
            SELECT rowid AS row_key, id, lat, lon, deleted_at IS NULL AND hidden_at IS NULL AND lat IS NOT NULL AS is_held FROM classes
            """)
        var found = 0
        for row in rows {
            let point = after.point(row: try row["row_key"])
            let id: String = try row["id"]
            guard try row["is_held"] as Bool else {
                #expect(point == nil, "\(id) is not held")
                continue
            }
            let (lat, lon): (Double, Double) = (try row["lat"], try row["lon"])
            #expect(point?.id == Identifier.packed(id) && point?.lat == lat && point?.lon == lon)
            found += 1
        }
        #expect(found == held && rows.count > held)
    }

    @Test("points further behind than the log keeps are read again whole")
    func readsAgainAfterAGap() async throws {
        let fixture = try await Fixture(seed: 20261125, count: 300)
        let seoul = SearchPropertyTests.hotspots[0]
        let search = Self.circle(seoul, radius: 50_000, status: nil)
        try await fixture.expectSamePages(search, "first read")
        // Two changes, the first of which the log no longer holds: the two nearest open listings are closed.
        let open = Self.circle(seoul, radius: 50_000, status: .open)
        let nearest = try await fixture.repository.search(open, viewerId: nil, page: PageRequest(limit: 2)).items.map(\.listing.id)
        #expect(nearest.count == 2)
        try await fixture.store.database.execute("UPDATE classes SET status = 'closed' WHERE id = \(nearest[0])")
        try await fixture.store.database.execute("DELETE FROM class_point_changes")
        try await fixture.store.database.execute("UPDATE classes SET status = 'closed' WHERE id = \(nearest[1])")
        let first = try await fixture.repository.search(open, viewerId: nil, page: PageRequest(limit: 2)).items.map(\.listing.id)
        #expect(Set(first).isDisjoint(with: nearest))
        try await fixture.expectSamePages(open, "after a gap")
        try await fixture.expectSamePages(search, "after a gap")
    }

    @Test("the log of changes keeps the last 10,000, and a point takes 64 bytes, 176 with its id's place and rowid copy")
    func logAndPointSize() async throws {
        let fixture = try await Fixture(seed: 20261125, count: 20)
        try await fixture.store.database.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10050)
            INSERT INTO class_point_changes (class_id) SELECT 'x' || i FROM n
            """)
        let kept = try await fixture.store.database.rows("SELECT COUNT(*) AS kept, MAX(seq) - MIN(seq) AS span FROM class_point_changes")[0]
        #expect(try kept["kept"] as Int == 10_000)
        #expect(try kept["span"] as Int == 9_999)
        #expect(MemoryLayout<ClassPoints.Point>.stride == 64)
        let points = try #require(try await fixture.store.database.read { db in try await fixture.store.classPoints.points(db) })
        #expect(points.count > 0 && points.heldBytes == 176 * points.count)
    }

    @Test("a listing whose id the server did not make leaves every search to the SQL walk, which still finds it")
    func foreignIds() async throws {
        let fixture = try await Fixture(seed: 20261125, count: 50)
        let seoul = SearchPropertyTests.hotspots[0]
        try await fixture.store.database.execute("""
            INSERT INTO classes (id, type, name, price_unit, writer_id, lat, lon, geohash, created_at, updated_at)
            VALUES ('imported-1', 'sell', 'imported', 'perHour', \(fixture.writers[2]), \(seoul.lat), \(seoul.lon),
                    \(Geohash(seoul, precision: Geohash.storagePrecision).string), 1, 1)
            """)
        let page = try await fixture.repository.search(Self.circle(seoul, radius: 1_000), viewerId: nil, page: PageRequest(limit: 1))
        #expect(page.items.map(\.listing.id) == ["imported-1"])
        let points = fixture.store.classPoints
        #expect(try await fixture.store.database.read { db in try await points.points(db) } == nil)
    }

    /// Sorted chunks against a sorted array, through thousands of random inserts and removals.
    struct Number: ChunkSorted {
        let order: Int
        let payload: Int
    }

    @Test("sorted chunks keep the order, counts and ranges of a sorted array through random inserts, replacements and removals")
    func sortedChunks() {
        var random = SeededRandom(seed: 5)
        var reference: [Int: Int] = [:]
        var chunks = SortedChunks<Number>(sorted: [])
        for step in 0..<6000 {
            let order = Int.random(in: 0..<3000, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                #expect(chunks.remove(at: order)?.order == reference.removeValue(forKey: order).map { _ in order })
            } else {
                chunks.insert(Number(order: order, payload: step))
                reference[order] = step
            }
        }
        Self.check(chunks, against: reference, using: &random)
    }

    @Test("sorted chunks made from a sorted array keep its counts and ranges as whole chunks empty and others split")
    func sortedChunksFromArray() {
        var random = SeededRandom(seed: 6)
        var reference = Dictionary(uniqueKeysWithValues: stride(from: 0, to: 6000, by: 2).map { ($0, $0) })
        var chunks = SortedChunks<Number>(sorted: reference.keys.sorted().map { Number(order: $0, payload: $0) })
        Self.check(chunks, against: reference, using: &random)
        // The first two chunks emptied, one past the end grown and split, odd orders filling the middle.
        for order in stride(from: 0, to: 2100, by: 2) {
            #expect(chunks.remove(at: order)?.payload == reference.removeValue(forKey: order))
        }
        for order in 6000..<7200 {
            chunks.insert(Number(order: order, payload: -order))
            reference[order] = -order
        }
        for order in stride(from: 3001, to: 4200, by: 2) {
            chunks.insert(Number(order: order, payload: order))
            reference[order] = order
        }
        Self.check(chunks, against: reference, using: &random)
    }

    /// Checks `chunks` against `reference` (payload by order): the count, and 200 random ranges' elements and counts.
    private static func check(_ chunks: SortedChunks<Number>, against reference: [Int: Int], using random: inout SeededRandom) {
        let sorted = reference.keys.sorted()
        #expect(chunks.count == sorted.count)
        let bound = (sorted.last ?? 0) + 10
        for _ in 0..<200 {
            let (a, b) = (Int.random(in: -10..<bound, using: &random), Int.random(in: -10..<bound, using: &random))
            let range = min(a, b)..<max(a, b)
            var seen: [Number] = []
            chunks.forEach(in: range) { seen.append($0) }
            #expect(seen.map(\.order) == sorted.filter(range.contains))
            #expect(seen.map(\.payload) == seen.map { reference[$0.order]! })
            #expect(chunks.count(in: range) == seen.count)
            #expect(chunks.element(at: a)?.payload == reference[a])
        }
    }

    @Test("packed identifiers keep the text's order and give it back; other text does not pack")
    func packedIdentifiers() {
        var random = SeededRandom(seed: 9)
        let ids = (0..<2000).map { _ in
            Identifier.make(at: Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &random)), using: &random)
        }
        for id in ids {
            #expect(Identifier.packed(id).map(Identifier.text(packed:)) == id)
        }
        #expect(ids.sorted().map { Identifier.packed($0)! } == ids.map { Identifier.packed($0)! }.sorted())
        for text in ["", "imported-1", "01M86H5AE920QNMXW9C2CFTV8", "01M86H5AE920QNMXW9C2CFTV833", "01m86h5ae920qnmxw9c2cftv83",
                     "81M86H5AE920QNMXW9C2CFTV83", "01M86H5AE920QNMXW9C2CFTVI3"] {
            #expect(Identifier.packed(text) == nil, "\(text)")
        }
        #expect(Identifier.packed("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") == UInt128.max)
    }

    @Test("a point's storage key lies in the storage keys of exactly the cells holding it")
    func storageKeys() {
        var random = SeededRandom(seed: 13)
        for _ in 0..<2000 {
            let point = GeoPoint(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180...180, using: &random))
            let key = Geohash.storageKey(of: point)
            for precision in 1...Geohash.maximumPrecision {
                #expect(Geohash(point, precision: precision).storageKeys.contains(key))
            }
            for precision in 1...Geohash.storagePrecision {
                let cell = Geohash(point, precision: precision)
                #expect(cell.neighbours.allSatisfy { $0 == cell || !$0.storageKeys.contains(key) })
            }
        }
    }
}

extension SearchPropertyTests.Fixture {
    /// Every page of `search` for `viewerId`, `limit` at a time, read from the points or, `inMemory` false, by the
    /// SQL walk; with the statements that read a walk's cell, which the points make unneeded.
    func pages(_ search: ClassSearch, viewerId: String?, limit: Int, inMemory: Bool) async throws -> (pages: [Page<ClassView>], cellReads: Int) {
        var pages: [Page<ClassView>] = []
        var request = PageRequest(limit: limit)
        var cellReads = 0
        while pages.count < 60 {
            let searcher = SQLClassSearch(search: search, page: request, viewerId: viewerId, dialect: .sqlite)
            let (page, reads) = try await store.database.read { db in
                let counting = ClassPointIndexTests.CellCounting(db, inMemory: inMemory)
                return (try await searcher.run(counting), counting.cellReads)
            }
            pages.append(page)
            cellReads += reads
            guard let next = page.nextCursor else { break }
            request = PageRequest(limit: limit, after: try PageCursor.decode(next, ordering: search.sort.rawValue))
        }
        return (pages, cellReads)
    }

    /// The values a page's cursor carries (its text's key order varies).
    static func cursorValues(_ page: Page<ClassView>) throws -> [PageCursorValue]? {
        try page.nextCursor.map { try PageCursor.decode($0, ordering: ClassSearch.Sort.distance.rawValue).values }
    }

    /// Checks that `search`'s pages from the points are the SQL walk's, item for item (each listing, its writer and
    /// whether the viewer saved it, as the points' cache of listings may keep them), and were read without a cell
    /// statement.
    func expectSamePages(_ search: ClassSearch, viewerId: String? = nil, limit: Int = 3, _ comment: Comment? = nil) async throws {
        let (memory, memoryCellReads) = try await pages(search, viewerId: viewerId, limit: limit, inMemory: true)
        let (walked, walkedCellReads) = try await pages(search, viewerId: viewerId, limit: limit, inMemory: false)
        #expect(memory.map { $0.items.map(\.listing.id) } == walked.map { $0.items.map(\.listing.id) }, comment)
        #expect(memory.map(\.items) == walked.map(\.items), comment)
        #expect(try memory.map(Self.cursorValues) == walked.map(Self.cursorValues), comment)
        #expect(memory.dropLast().allSatisfy { $0.items.count == limit }, "a short page before the last: \(comment.map { "\($0)" } ?? "")")
        #expect(memoryCellReads == 0, "the points answered without reading a cell")
        #expect(walkedCellReads > 0 || walked.allSatisfy(\.items.isEmpty))
    }
}
