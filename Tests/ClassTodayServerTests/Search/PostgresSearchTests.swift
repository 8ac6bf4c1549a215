import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
@testable import ClassTodayServer

/// The PostgreSQL class and alert repositories against brute force, like ``SearchPropertyTests`` and
/// ``AlertPropertyTests`` for SQLite: random listings (some renamed or deleted afterwards), hundreds of random
/// searches (circles and boxes near the antimeridian and the poles, Korean keywords of one to three syllables with
/// and without spacing, filters, every sort, random page sizes), each compared with a full scan applying
/// ``ClassSearch/matchesFilters(_:)`` and ``SearchQuery/matches(_:)``; and alert fan-out against ``Alert/matches(_:)``,
/// also with several fan-outs running at once. Runs only when `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("PostgresSearch: Postgres search and alerts against brute force", .serialized, .postgresOnly)
struct PostgresSearchTests {
    static let logger = Logger(label: "test.postgres-search")

    /// Keywords beyond the listing words: single syllables, bigrams across words, runs spanning a space.
    static let keywords = SearchPropertyTests.words + ["가", "수", "가수", "요가 수", "아노레", "노 레", "초등 수", "gui", "pyth", "수업설"]

    /// A migrated, empty database on the test server.
    ///
    /// A store over a new database holding the schema.
    static func openStore() async throws -> PostgresStore {
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        return try PostgresStore.open(url: url, logger: logger)
    }

    /// Inserts `count` users with plain SQL (no user repository needed) and returns their ids.
    static func insertUsers(_ count: Int, _ store: PostgresStore) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<count {
            let id = Identifier.make()
            let email = "pg\(index)-\(id)@example.com"
            let now = Date().millisecondsSince1970
            try await store.client.query("""
                INSERT INTO users (id, email, email_normalized, password_hash, nickname, created_at, updated_at)
                VALUES (\(id), \(email), \(email.lowercased()), 'x', \("u\(index)"), \(now), \(now))
                """, logger: logger)
            ids.append(id)
        }
        return ids
    }

    /// A store over a new database holding the listings `make` makes for `writers` new users from the random seed `seed`.
    static func storeHolding(
        writers: Int, seed: UInt64, _ make: ([String], inout SeededRandom) -> [ClassListing]
    ) async throws -> (store: PostgresStore, repository: SQLClassRepository, listings: [ClassListing]) {
        let store = try await openStore()
        do {
            let repository = SQLClassRepository(database: store.database)
            var random = SeededRandom(seed: seed)
            let listings = make(try await insertUsers(writers, store), &random)
            try await forEachConcurrently(listings) { listing in _ = try await repository.create(listing) }
            // The statistics the walk's estimates read, gathered now over every row: left to autovacuum, which gathers
            // them within a minute of the inserts, a test's first searches and its later ones split other cells, and a
            // keyword's pages within a district came short after the statistics arrived (one run in two).
            try await store.database.execute("ANALYZE classes")
            return (store, repository, listings)
        } catch {
            store.close()
            throw error
        }
    }

    /// Runs `body` over `items`, at most `width` at a time.
    static func forEachConcurrently<Item: Sendable>(
        _ items: [Item], width: Int = 8, _ body: @escaping @Sendable (Item) async throws -> Void
    ) async throws {
        var start = 0
        while start < items.count {
            let chunk = items[start..<min(items.count, start + width)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for item in chunk { group.addTask { try await body(item) } }
                try await group.waitForAll()
            }
            start += width
        }
    }

    /// A random search of ``SearchPropertyTests/randomSearch(_:)`` with, half the time, one of ``keywords``.
    static func randomSearch(_ random: inout SeededRandom) -> ClassSearch {
        var search = SearchPropertyTests.randomSearch(&random)
        if Int.random(in: 0..<4, using: &random) == 0 {
            search.keyword = SearchTokenizer.query(keywords.randomElement(using: &random)!)
            if Bool.random(using: &random) { search.sort = .relevance }
        }
        return search
    }

    /// Every page of `search`, `limit` at a time, confirming or examining at most `confirming` candidates a page; with
    /// `fewHits` 0, a keyword's nearest-first walk reads all its cells.
    static func allPages(
        _ search: ClassSearch, limit: Int, _ repository: SQLClassRepository, fewHits: Int = SQLClassSearch.fewHits,
        confirming: Int = SQLClassSearch.confirmationBudget
    ) async throws -> [ClassView] {
        try await pages(search, limit: limit, repository, fewHits: fewHits, confirming: confirming).flatMap { $0 }
    }

    /// Each page of `search`, `limit` at a time, confirming at most `confirming` keyword candidates a page.
    static func pages(
        _ search: ClassSearch, limit: Int, _ repository: SQLClassRepository, fewHits: Int = SQLClassSearch.fewHits,
        confirming: Int = SQLClassSearch.confirmationBudget
    ) async throws -> [[ClassView]] {
        var pages: [[ClassView]] = []
        var page = PageRequest(limit: limit)
        while true {
            let result = try await repository.search(search, viewerId: nil, page: page, fewHits: fewHits, confirming: confirming)
            pages.append(result.items)
            guard let next = result.nextCursor, pages.count < 3000 else { break }
            page = PageRequest(limit: limit, after: try PageCursor.decode(next, ordering: search.sort.rawValue))
        }
        return pages
    }

    @Test("random circles, boxes, keywords and filters return exactly the brute-force set, each once, in order, also when their pages end after a small budget of candidates")
    func searchAgainstBruteForce() async throws {
        try await Self.detailingErrors(searchProperty)
    }

    /// Runs `body`, rethrowing a PostgreSQL error with its details (which its description hides).
    static func detailingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as PSQLError {
            throw CocoaError(.coderInvalidValue, userInfo: [NSLocalizedDescriptionKey: String(reflecting: error)])
        }
    }

    func searchProperty() async throws {
        let store = try await Self.openStore()
        defer { store.close() }
        let repository = SQLClassRepository(database: store.database)
        let writers = try await Self.insertUsers(5, store)
        var random = SeededRandom(seed: 20261123)
        var listings = SearchPropertyTests.randomListings(count: 2000, writers: writers, random: &random)
        try await Self.forEachConcurrently(listings) { listing in _ = try await repository.create(listing) }

        // Renaming reindexes keywords; deleting removes from every search.
        for index in stride(from: 0, to: listings.count, by: 37) {
            let name = Self.keywords.randomElement(using: &random)! + " 새 이름"
            listings[index] = try await repository.update(id: listings[index].id, by: listings[index].writerId) { $0.name = name }.listing
        }
        var deleted: Set<String> = []
        for index in stride(from: 5, to: listings.count, by: 53) {
            try await repository.delete(id: listings[index].id, by: listings[index].writerId)
            deleted.insert(listings[index].id)
        }
        let live = listings.filter { !deleted.contains($0.id) }
        // Statistics let confirmed keywords leave their common tokens out (``TSVectorClassIndex/counts(of:upTo:_:)``).
        try await store.database.execute("ANALYZE classes")

        var nonEmpty = 0
        var worstDistanceError = 0.0
        for round in 0..<300 {
            let search = Self.randomSearch(&random)
            let limit = [5, 20, 100].randomElement(using: &random)!
            // A third of the rounds walk every cell, as the fixture's keyword hits are all few; a third find more than 8
            // and walk on. A fifth end their pages after a few candidates.
            let views = try await Self.allPages(search, limit: limit, repository, fewHits: [SQLClassSearch.fewHits, 0, 8][round % 3],
                                                confirming: round % 5 == 4 ? [1, 40, 400][round / 5 % 3] : SQLClassSearch.confirmationBudget)
            let expected = Set(live.filter { listing in
                search.matchesFilters(listing)
                    && (search.keyword.map { $0.matches(listing.name + "\n" + listing.description) } ?? true)
            }.map(\.id))
            let ids = views.map(\.listing.id)
            #expect(Set(ids).count == ids.count, "round \(round): an item appeared twice")
            #expect(Set(ids) == expected,
                    "round \(round): \(search) missing \(expected.subtracting(ids).count), extra \(Set(ids).subtracting(expected).count)")
            if !expected.isEmpty { nonEmpty += 1 }
            switch search.sort {
            case .distance:
                let keys = views.map { ($0.distance ?? -1, $0.listing.id) }
                #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }, "round \(round): not nearest first")
            case .recent:
                let keys = views.map { ($0.listing.createdAt, $0.listing.id) }
                #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 >= $1 }, "round \(round): not newest first")
            case .relevance:
                let keyword = try #require(search.keyword)
                #expect(keyword.isInRelevanceOrder(views.map(\.listing)), "round \(round): not name hits first, then newest first")
            }
            if let circle = search.circle {
                for view in views {
                    let exact = Haversine.distance(circle.center, try #require(view.listing.location))
                    worstDistanceError = max(worstDistanceError, abs(exact - (view.distance ?? .infinity)))
                }
            }
        }
        #expect(worstDistanceError < 1e-6, "SQL haversine must agree with Haversine.distance")
        #expect(nonEmpty > 80, "the random searches should mostly find something")
        Self.logger.info("postgres search property test", metadata: ["nonEmpty": "\(nonEmpty)", "worstDistanceError": "\(worstDistanceError)"])
    }

    @Test("a circle page without a keyword is one statement the nearest-first GiST index answers in its order, its writers looked up by hash; with a keyword the statistics do not call common, it walks cells")
    func nearestIndexPlan() async throws {
        let store = try await Self.openStore()
        defer { store.close() }
        var circle = ClassSearch()
        circle.circle = .init(center: GeoPoint(lat: 37.48, lon: 126.93), radius: 5000)
        circle.subjects = [.math]
        circle.sort = .distance
        var withKeyword = circle
        withKeyword.keyword = SearchTokenizer.query("요가")
        for (search, usesNearestIndex) in [(circle, true), (withKeyword, false)] {
            let statement = try #require(SQLClassSearch(search: search, page: PageRequest(limit: 20), viewerId: nil, dialect: .postgres)
                .firstStatement())
            // An empty table is cheapest to scan; without that choice, only an order the index yields avoids a sort.
            let plan: [String] = try await store.database.transaction { db in
                try await db.execute("SET LOCAL enable_seqscan = off")
                return try await db.rows(SQLStatement(sql: "EXPLAIN " + statement.sql, values: statement.values)).map { try $0["QUERY PLAN"] }
            }
            #expect(Self.readsNearestFirst(plan) == usesNearestIndex, "\(plan.joined(separator: "\n"))")
            guard usesNearestIndex else { continue }
            #expect(statement.isRepeated)
            // A page of 20 reads 21 listings with their writers: the page, and one farther that settles it and says
            // whether a next page follows.
            #expect(statement.sql.contains("LIMIT 21") && !statement.sql.contains("LIMIT 22"), "\(statement.sql)")
            // The statement is prepared once per connection: the plan kept for any circle reads the index in its order too.
            let generic: [String] = try await store.database.transaction { db in
                try await db.execute("SET LOCAL enable_seqscan = off")
                try await db.execute("SET LOCAL plan_cache_mode = force_generic_plan")
                try await db.execute(SQLStatement(sql: "PREPARE nearest_page AS " + PostgresDatabase.numberPlaceholders(statement.sql, typedAs: statement.values)))
                let literals = statement.values.map(Self.literal).joined(separator: ", ")
                let plan = try await db.rows(SQLStatement(sql: "EXPLAIN EXECUTE nearest_page(\(literals))")).map { try $0["QUERY PLAN"] as String }
                try await db.execute("DEALLOCATE nearest_page")
                return plan
            }
            #expect(Self.readsNearestFirst(generic) && generic.contains { $0.contains("$") }, "\(generic.joined(separator: "\n"))")
            // The centre and its box are computed once per run, not for each listing read.
            #expect(generic.contains { $0.contains("InitPlan") }, "\(generic.joined(separator: "\n"))")
            // Each listing's writer is looked up in the hash index on users' ids (two buffers), not the primary key's B-tree (four).
            #expect(generic.contains { $0.contains("users_by_id_hash") }, "\(generic.joined(separator: "\n"))")
        }
    }

    @Test("a keyword in half the listings is read nearest first in the sphere index's order; where the nearest listings lack it, the walk reads the page; pages equal brute force")
    func commonKeywordNearestFirst() async throws {
        let store = try await Self.openStore()
        defer { store.close() }
        let repository = SQLClassRepository(database: store.database)
        let writers = try await Self.insertUsers(3, store)
        var random = SeededRandom(seed: 2026_1126)
        // 1,200 listings of 과외 spread over some 5 km around `center`, and 1,200 open ones of 요가 within 100 m of it (30
        // of them 드럼 too): the nearest TSVectorClassIndex.nearestReach listings to the centre hold 과외 once at most.
        let center = GeoPoint(lat: 37.48, lon: 126.95)
        #expect(TSVectorClassIndex.nearestReach < 1_200)
        var listings = SearchPropertyTests.randomListings(count: 2_400, writers: writers, random: &random)
        for index in listings.indices {
            let common = index % 2 == 0
            listings[index].name = common ? "과외 " + listings[index].name : index % 40 == 1 ? "요가 드럼 교실" : "요가 교실"
            listings[index].description = common ? listings[index].description : "요가 설명"
            listings[index].location = random.point(near: center, spread: common ? 0.05 : 0.001)
            if !common { listings[index].status = .open }
        }
        try await Self.forEachConcurrently(listings) { listing in _ = try await repository.create(listing) }
        try await store.database.execute("ANALYZE classes")
        let keyword = try #require(SearchTokenizer.query("과외"))
        let rarer = try #require(SearchTokenizer.query("드럼"))
        let reaches = try await store.database.read { db in
            (try await TSVectorClassIndex().nearestReach(of: keyword, wanted: 22, db), try await TSVectorClassIndex().nearestReach(of: rarer, wanted: 22, db))
        }
        #expect(reaches.0 == TSVectorClassIndex.nearestReach, "the common word is read nearest first")
        #expect(reaches.1 == nil, "the rare word walks")

        for round in 0..<16 {
            var search = ClassSearch()
            search.keyword = keyword
            search.sort = .distance
            // Even rounds start among the 요가 listings, where the read gives up for the walk.
            let origin = round % 2 == 0 ? center : random.point(near: center, spread: 0.04)
            search.circle = .init(center: origin, radius: [500, 1_500, 4_000].randomElement(using: &random)!)
            if Bool.random(using: &random) { search.status = .open }
            let views = try await Self.allPages(search, limit: [5, 30].randomElement(using: &random)!, repository)
            let expected = listings.filter { search.matchesFilters($0) && keyword.matches($0.name + "\n" + $0.description) }
                .map { (Haversine.distance(origin, $0.location!), $0.id) }.sorted { $0 < $1 }
            #expect(views.map(\.listing.id) == expected.map(\.1), "round \(round): \(search)")
            #expect(zip(views.compactMap(\.distance), expected.map(\.0)).allSatisfy { abs($0 - $1) < 1e-6 }, "round \(round): distances")
        }
    }

    @Test("a keyword's token over four times as common as the rarest beside it is counted from the statistics of classes.search and left out, and its pages equal brute force; the statistics say whether its hits may be few, and how many of them a cell holds")
    func commonTokenLeftOut() async throws {
        // Without statistics, nothing is counted. (A table holding listings may be analyzed by autovacuum at any time.)
        let empty = try await Self.openStore()
        defer { empty.close() }
        let unanalyzed = try await empty.database.read { db in try await TSVectorClassIndex().counts(of: ["수학"], upTo: 65_536, db) }
        #expect(unanalyzed.isEmpty, "no statistics of a table never analyzed")
        let (store, repository, listings) = try await Self.storeHolding(writers: 5, seed: 13, SearchPropertyTests.commonTokenListings)
        defer { store.close() }
        try await store.database.execute("ANALYZE classes")
        let counts = try await store.database.read { db in
            try await TSVectorClassIndex().counts(of: ["공업", "업수", "수학", "없는"], upTo: 1_000, db)
        }
        // ANALYZE reads every row of a table this small: the shares are exact. A lexeme no listing holds counts as the
        // least share kept.
        #expect(counts["공업"] == 300 && counts["업수"] == 300 && counts["수학"] == 1_000, "\(counts)")
        #expect(try #require(counts["없는"]) <= 300, "\(counts)")
        // The statistics tell a walk whether reading all of a keyword's hits at once is worth a try.
        let mayHoldFewHits = try await store.database.read { db in
            var answers: [Bool] = []
            for (word, limit) in [("수학", 1_000), ("수학", 2_000), ("공업", 1_000), ("공업", 100)] {
                answers.append(try await TSVectorClassIndex().mayHoldFewHits(of: try #require(SearchTokenizer.query(word)), atMost: limit, db))
            }
            return answers
        }
        #expect(mayHoldFewHits == [false, true, true, false], "1,400 listings hold 수학, 300 공업")
        // A cell's candidates are estimated from the counts of its lexeme and of every listing, when the statistics
        // keep that lexeme: the listings lie around one point, and 14 in 15 of them hold 수학.
        let seoul = Geohash(SearchPropertyTests.hotspots[0], precision: 3)
        let inSeoul = listings.filter { Geohash($0.location!, precision: 3) == seoul }
        // The first estimate starts counting the keyword's tokens and every listing, apart; later ones find them kept.
        let counted = try await eventually {
            try await store.database.read { db in
                try await TSVectorClassIndex().estimatedCandidates(of: try #require(SearchTokenizer.query("수학")), in: seoul, db) != nil
            }
        }
        #expect(counted, "the counts of 수학 and of every listing are kept")
        let estimates = try await store.database.read { db in
            let (index, word) = (TSVectorClassIndex(), try #require(SearchTokenizer.query("수학")))
            return (try await index.counts(of: [TSVectorClassIndex.everyListing], upTo: .max, db)[TSVectorClassIndex.everyListing],
                    try await index.estimatedCandidates(of: word, in: seoul, db),
                    try await index.estimatedCandidates(of: word, in: Geohash(GeoPoint(lat: 0, lon: -30), precision: 3), db))
        }
        #expect(estimates.0 == listings.count && estimates.2 == nil, "\(estimates)")
        let expected = Double(inSeoul.filter { $0.name.contains("수학") }.count)
        #expect(abs(try #require(estimates.1) - expected) <= 0.02 * expected, "\(estimates) against \(expected)")
        for (search, expected) in SearchPropertyTests.commonTokenSearches(among: listings) {
            for fewHits in [SQLClassSearch.fewHits, 0, 8] {
                let views = try await Self.allPages(search, limit: 20, repository, fewHits: fewHits)
                #expect(views.map(\.listing.id) == expected, "\(search.sort), fewHits \(fewHits)")
            }
        }
    }

    @Test("a run of initials almost nothing matches ends a page after its budget of candidates confirmed or examined, by relevance and nearest first: pages come short, and walking their cursors gives brute force; so does a subject few listings teach, read in the sphere index's order no farther than the budget, where a price few ask is read in the index that holds prices and its pages stay full; a district a circle barely holds is walked on its own listings and its pages stay full; with a keyword all the listings hold, the statistics split cells outside it and its pages come short")
    func confirmationBudget() async throws {
        // The matches alone ask 200,000 or more and teach a major, so that a price or a subject filter selects them as the
        // run of initials does.
        let (store, repository, listings) = try await Self.storeHolding(writers: 5, seed: 14) { writers, random in
            SearchPropertyTests.initialsRunListings(writers: writers, random: &random).map { listing in
                var listing = listing
                let isMatch = listing.name == "가게 구경"
                listing.price = isMatch ? 200_000 + (listing.price ?? 0) : listing.price.map { $0 % 200_000 }
                listing.subjects = isMatch ? [.major] : listing.subjects.filter { $0 != .major }
                return listing
            }
        }
        defer { store.close() }
        let matches = listings.filter { $0.name == "가게 구경" }
        let circle = ClassSearch.Circle(center: SearchPropertyTests.hotspots[0], radius: 50_000)
        var byRelevance = ClassSearch(), nearestFirst = ClassSearch(), inDistrict = ClassSearch()
        (byRelevance.keyword, byRelevance.sort) = (SearchTokenizer.query("ㄱㄱㄱㄱ"), .relevance)
        (nearestFirst.keyword, nearestFirst.sort, nearestFirst.circle) = (SearchTokenizer.query("ㄱㄱㄱㄱ"), .distance, circle)
        (inDistrict.keywordLocation, inDistrict.sort, inDistrict.circle) = ("가게동", .distance, circle)
        var keywordInDistrict = inDistrict
        keywordInDistrict.keyword = SearchTokenizer.query("가게")
        var expensive = ClassSearch(), major = ClassSearch()
        (expensive.minPrice, expensive.sort, expensive.circle) = (200_000, .distance, circle)
        (major.subjects, major.sort, major.circle) = ([.major], .distance, circle)
        let nearest = matches.map { (Haversine.distance(SearchPropertyTests.hotspots[0], $0.location!), $0.id) }.sorted { $0 < $1 }.map(\.1)
        // A keyword within the district splits cells outside it by the statistics' estimates, which cannot tell the
        // district's share of a cell, and each split cell's statements count against the budget: its pages come short.
        let searches: [(ClassSearch, [String], BudgetedPages)] = [
            (byRelevance, matches.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id), .endEarly),
            (nearestFirst, nearest, .endEarly), (inDistrict, nearest, .stayFull), (keywordInDistrict, nearest, .endEarly),
            (expensive, nearest, .stayFull), (major, nearest, .endEarly),
        ]
        for (search, expected, budgetedPages) in searches {
            let label = "\(search.sort), district \(search.keywordLocation ?? "none"), keyword \(search.keyword != nil), price \(search.minPrice ?? 0), subjects \(search.subjects ?? [])"
            let whole = try await Self.pages(search, limit: 20, repository)
            #expect(whole.flatMap { $0 }.map(\.listing.id) == expected, "\(label)")
            #expect(whole.dropLast().allSatisfy { $0.count == 20 }, "\(label): \(whole.map(\.count))")
            // A walk started counting its keyword's tokens and every listing apart (one statement); the budgeted pages
            // are to find them kept.
            if search.keyword != nil, search.sort == .distance {
                #expect(await eventually { store.database.tokenCounts?.kept([TSVectorClassIndex.everyListing]).isEmpty == false }, "\(label)")
            }
            let budgeted = try await Self.pages(search, limit: 20, repository, confirming: 200)
            #expect(budgeted.flatMap { $0 }.map(\.listing.id) == expected, "\(label)")
            switch budgetedPages {
            case .endEarly:
                #expect(budgeted.count > whole.count && budgeted.dropLast().contains { $0.count < 20 }, "\(label): \(budgeted.map(\.count))")
            case .stayFull:
                #expect(budgeted.map(\.count) == whole.map(\.count), "\(label)")
            }
        }
    }

    /// How a search's pages under a small budget compare with its pages under the default one.
    enum BudgetedPages {
        /// Some come short, and there are more of them.
        case endEarly
        /// The same pages.
        case stayFull
    }

    @Test("a typo-tolerant word whose unmatched candidates crowd the centre and whose matches lie far gives its pages in order, read at once, walked, or walked after the read finds more than 8")
    func farMatchesAmongNearCandidates() async throws {
        let (store, repository, listings) = try await Self.storeHolding(writers: 2, seed: 11, SearchPropertyTests.farMatchListings)
        defer { store.close() }
        let expected = SearchPropertyTests.farMatches(among: listings)
        for fewHits in [SQLClassSearch.fewHits, 0, 8] {
            let views = try await Self.allPages(SearchPropertyTests.farMatchSearch, limit: 20, repository, fewHits: fewHits)
            #expect(views.map(\.listing.id) == expected, "fewHits \(fewHits)")
        }
    }

    /// Whether `plan` reads `classes_by_sphere` in the index's order, with no sort.
    private static func readsNearestFirst(_ plan: [String]) -> Bool {
        plan.contains { $0.contains("Index Scan using classes_by_sphere") } && plan.contains { $0.contains("Order By:") }
            && !plan.contains { $0.contains("Sort") }
    }

    /// `value` as an SQL literal.
    private static func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }

    @Test("autovacuum can gather the statistics of classes: ANALYZE evaluates every index expression under the search path maintenance uses")
    func analyzeUnderMaintenanceSearchPath() async throws {
        let store = try await Self.openStore()
        defer { store.close() }
        var random = SeededRandom(seed: 16)
        // ANALYZE evaluates an index's expression only for the rows it samples: the table must hold listings with a place.
        let listings = SearchPropertyTests.randomListings(count: 20, writers: try await Self.insertUsers(1, store), random: &random)
        let repository = SQLClassRepository(database: store.database)
        try await Self.forEachConcurrently(listings) { listing in _ = try await repository.create(listing) }
        let analyzedColumns: Int = try await store.database.transaction { db in
            // Autovacuum's search path: an SQL function naming its types and functions without a schema fails here.
            try await db.execute("SET LOCAL search_path = pg_catalog, pg_temp")
            try await db.execute("ANALYZE public.classes")
            return try await db.row("SELECT COUNT(*) AS n FROM pg_catalog.pg_stats WHERE schemaname = 'public' AND tablename = 'classes'")?["n"] ?? 0
        }
        #expect(analyzedColumns > 0)
    }

    @Test("a listing reads back as written; errors, favourites and writer pages behave as on SQLite")
    func repositoryBasics() async throws {
        let store = try await Self.openStore()
        defer { store.close() }
        let repository = SQLClassRepository(database: store.database)
        let users = try await Self.insertUsers(2, store)
        var random = SeededRandom(seed: 5)
        let listings = SearchPropertyTests.randomListings(count: 7, writers: [users[0]], random: &random)
        for listing in listings {
            let created = try await repository.create(listing).listing
            #expect(created.id == listing.id && created.name == listing.name && created.location == listing.location
                && created.subjects == listing.subjects && created.days == listing.days && created.price == listing.price)
        }
        #expect(try await repository.view(id: "missing", viewerId: nil) == nil)
        await #expect(throws: DomainError.notFound("class")) {
            try await repository.update(id: "missing", by: users[0]) { $0.name = "x" }
        }
        await #expect(throws: DomainError.forbidden("only the writer may change this class")) {
            try await repository.update(id: listings[0].id, by: users[1]) { $0.name = "x" }
        }
        await #expect(throws: DomainError.self) {
            _ = try await repository.update(id: listings[1].id, by: users[0]) { $0.imageIds = ["nope"] }
        }
        for listing in listings { try await repository.setFavorite(classId: listing.id, userId: users[1], true) }
        try await repository.setFavorite(classId: listings[0].id, userId: users[1], true)
        #expect(try await repository.view(id: listings[0].id, viewerId: users[1])?.listing.favoriteCount == 1)
        #expect(try await repository.view(id: listings[0].id, viewerId: users[1])?.isFavorite == true)
        var favorites: [String] = []
        var page = PageRequest(limit: 3)
        while true {
            let result = try await repository.favorites(of: users[1], page: page)
            favorites += result.items.map(\.listing.id)
            guard let next = result.nextCursor else { break }
            page = PageRequest(limit: 3, after: try PageCursor.decode(next, ordering: "favorites"))
        }
        #expect(Set(favorites) == Set(listings.map(\.id)) && favorites.count == listings.count)
        try await repository.delete(id: listings[2].id, by: users[0])
        await #expect(throws: DomainError.notFound("class")) {
            try await repository.setFavorite(classId: listings[2].id, userId: users[1], true)
        }
        var written: [ClassView] = []
        page = PageRequest(limit: 2)
        while true {
            let result = try await repository.classes(writtenBy: users[0], viewerId: nil, page: page)
            written += result.items
            guard let next = result.nextCursor else { break }
            page = PageRequest(limit: 2, after: try PageCursor.decode(next, ordering: "recent"))
        }
        let expected = listings.filter { $0.id != listings[2].id }
            .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id)
        #expect(written.map(\.listing.id) == expected)
    }

    @Test("for random alerts and classes, fan-out notifies exactly the alerts a full check selects, once")
    func alertsAgainstBruteForce() async throws {
        try await Self.detailingErrors(alertProperty)
    }

    func alertProperty() async throws {
        let store = try await Self.openStore()
        defer { store.close() }
        let classes = SQLClassRepository(database: store.database)
        let repository = SQLAlertRepository(database: store.database)
        let users = try await Self.insertUsers(6, store)
        var random = SeededRandom(seed: 43)
        let centers = [GeoPoint(lat: 37.5665, lon: 126.9780), GeoPoint(lat: -16.5, lon: 179.98), GeoPoint(lat: 89.9, lon: 0)]
        var alerts: [Alert] = []
        for _ in 0..<400 {
            let alert = AlertPropertyTests.randomAlert(users: users, near: centers, random: &random)
            try await repository.create(alert)
            alerts.append(alert)
        }
        func randomListing(_ index: Int) -> ClassListing {
            let now = Date()
            return ClassListing(
                id: Identifier.make(at: now, using: &random), type: Bool.random(using: &random) ? .buy : .sell,
                name: ["수학 과외", "요가 수업", "Python 기초", "피아노"].randomElement(using: &random)!, description: "설명 \(index)",
                days: [[], [.mon], [.fri]].randomElement(using: &random)!, time: nil, place: nil,
                location: random.point(near: centers.randomElement(using: &random)!, spread: 0.3),
                keywordLocation: nil, price: [nil, 20_000, 50_000].randomElement(using: &random)!, priceUnit: .perHour,
                subjects: [[.math], [.hobby], []].randomElement(using: &random)!, targets: [], capacity: 1,
                status: index % 10 == 9 ? .closed : .open, imageIds: [],
                writerId: users.randomElement(using: &random)!, favoriteCount: 0, createdAt: now, updatedAt: now)
        }
        func expected(_ listing: ClassListing) -> Set<String> {
            guard listing.status == .open else { return [] }
            return Set(alerts.filter { $0.userId != listing.writerId && $0.matches(listing) }.map(\.id))
        }
        var notified = 0
        for index in 0..<150 {
            let listing = randomListing(index)
            _ = try await classes.create(listing)
            let batch = try await repository.fanOut(limit: 10, at: Date())
            #expect(batch.classCount == 1 && batch.notifications.allSatisfy { $0.classId == listing.id })
            let fired = Set(batch.notifications.map(\.alertId))
            let wanted = expected(listing)
            #expect(fired == wanted, "class \(index): missing \(wanted.subtracting(fired).count), extra \(fired.subtracting(wanted).count)")
            notified += fired.count
        }
        #expect(notified > 50, "the random cases should fire alerts")
        let drained = try await repository.fanOut(limit: 10, at: Date())
        #expect(drained.classCount == 0 && drained.notifications.isEmpty, "a class is fanned out once")

        // Several nodes fanning out at once: every queued class is taken by exactly one of them.
        let queued = (0..<40).map { randomListing($0) }
        for listing in queued { _ = try await classes.create(listing) }
        let batches = try await withThrowingTaskGroup(of: [AlertFanOutBatch].self) { group in
            for _ in 0..<3 {
                group.addTask {
                    var batches: [AlertFanOutBatch] = []
                    while true {
                        let batch = try await repository.fanOut(limit: 3, at: Date())
                        if batch.classCount == 0 { return batches }
                        batches.append(batch)
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(batches.reduce(0) { $0 + $1.classCount } == queued.count)
        let pairs = batches.flatMap(\.notifications).map { "\($0.classId)/\($0.alertId)" }
        let wantedPairs = queued.flatMap { listing in expected(listing).map { "\(listing.id)/\($0)" } }
        #expect(pairs.count == Set(pairs).count, "a notification was made twice")
        #expect(Set(pairs) == Set(wantedPairs))
        #expect(try await repository.fanOut(limit: 10, at: Date()).classCount == 0)

        // Notifications page newest first and mark read once.
        let owner = try #require(batches.flatMap(\.notifications).first?.userId)
        var seen: [AlertNotification] = []
        var page = PageRequest(limit: 4)
        while true {
            let result = try await repository.notifications(of: owner, page: page)
            seen += result.items
            guard let next = result.nextCursor else { break }
            page = PageRequest(limit: 4, after: try PageCursor.decode(next, ordering: "notifications"))
        }
        #expect(Set(seen.map(\.id)).count == seen.count)
        let ids = seen.map(\.id)
        #expect(try await repository.markRead(ids: ids + ["other"], userId: owner) == ids.count)
        #expect(try await repository.markRead(ids: ids, userId: owner) == 0)
        let mine = alerts.filter { $0.userId == owner }
        var listed: [Alert] = []
        page = PageRequest(limit: 7)
        while true {
            let result = try await repository.alerts(of: owner, page: page)
            listed += result.items
            guard let next = result.nextCursor else { break }
            page = PageRequest(limit: 7, after: try PageCursor.decode(next, ordering: "alerts"))
        }
        #expect(Set(listed.map(\.id)) == Set(mine.map(\.id)) && listed.count == mine.count)
        await #expect(throws: DomainError.notFound("alert")) { try await repository.delete(id: "missing", by: owner) }
        let foreign = try #require(alerts.first { $0.userId != owner })
        await #expect(throws: DomainError.forbidden("only the alert's owner may delete it")) {
            try await repository.delete(id: foreign.id, by: owner)
        }
        try await repository.delete(id: mine[0].id, by: owner)
    }
}
