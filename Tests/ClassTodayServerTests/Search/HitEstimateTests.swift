import ClassTodayCore
import Logging
import Testing
@testable import ClassTodayServer

/// How PostgreSQL's relevance read chooses between sorting a keyword's hits and reading them from a window of the
/// newest listings (``HitEstimate``): the bound it reads from the planner's per-token statistics, and the plans it reads them from.
@Suite("HitEstimate: the bound on a keyword's hits behind PostgreSQL's relevance read")
struct HitEstimateTests {
    @Test("the bound is the least frequent token of a word, and the least over the query's words")
    func bound() throws {
        let query = try #require(SearchTokenizer.query("ㅇㅇㅎㅎ"))
        let tokens = query.tokenRequirements
        #expect(tokens.count > 1)
        let frequencies = Dictionary(uniqueKeysWithValues: tokens.enumerated().map { ($1, Double(90_000 - $0 * 10_000)) })
        #expect(HitEstimate.bound(query, tokenHits: { frequencies[$0]! }) == frequencies.values.min())
        let words = try #require(SearchTokenizer.query("수학 gui"))
        #expect(HitEstimate.bound(words, tokenHits: { $0.isPrefix ? 500 : 40_000 }) == 500)
    }

    @Test("a typo-tolerant word's alternatives are summed for the bound, and the most frequent stands for them when they overlap")
    func overlappingBound() throws {
        let query = try #require(SearchTokenizer.query("바이올린"))
        let alternatives = try #require(query.conditions.first?.alternatives)
        #expect(query.conditions.count == 1 && alternatives.count > 1)
        let frequencies: [String: Double] = ["바이": 9_000, "이올": 3_000, "올린": 4_000]
        let tokenHits = { (token: SearchQuery.TokenRequirement) in frequencies[token.token] ?? 0 }
        let each = alternatives.map { $0.map(tokenHits).min() ?? 0 }
        #expect(HitEstimate.bound(query, tokenHits: tokenHits) == each.reduce(0, +))
        #expect(HitEstimate.overlappingBound(query, tokenHits: tokenHits) == each.max())
        #expect(HitEstimate.overlappingBound(query, tokenHits: tokenHits) < HitEstimate.bound(query, tokenHits: tokenHits))
        // One alternative per condition: the two agree.
        let word = try #require(SearchTokenizer.query("수학 영어"))
        #expect(HitEstimate.overlappingBound(word, tokenHits: { _ in 700 }) == HitEstimate.bound(word, tokenHits: { _ in 700 }))
    }

    @Test("sorting is chosen up to about √(margin × limit × listings / cost) hits, a window beyond; with no hits, an empty table or no statistics for the keyword, it sorts")
    func choice() {
        #expect(HitEstimate(candidates: 2_700, hits: 2_700, listings: 1_000_000).favoursSorting(limit: 64))
        #expect(!HitEstimate(candidates: 2_800, hits: 2_800, listings: 1_000_000).favoursSorting(limit: 64))
        #expect(HitEstimate(candidates: 1_550, hits: 1_550, listings: 1_000_000).favoursSorting(limit: 21))
        #expect(!HitEstimate(candidates: 1_600, hits: 1_600, listings: 1_000_000).favoursSorting(limit: 21))
        #expect(!HitEstimate(candidates: 42_651, hits: 42_651, listings: 1_000_000).favoursSorting(limit: 64))
        // A Latin word found mostly in names: outside the name tier, few listings are left to find.
        #expect(HitEstimate(candidates: 7_000, hits: 300, listings: 1_000_000).favoursSorting(limit: 64))
        #expect(HitEstimate(candidates: 7_000, hits: 0, listings: 1_000_000).favoursSorting(limit: 64))
        #expect(HitEstimate(candidates: 0, hits: 0, listings: 0).favoursSorting(limit: 21))
        var guessed = HitEstimate(candidates: 5_038, hits: 5_038, listings: 1_000_000)
        #expect(!guessed.favoursSorting(limit: 64))
        guessed.isFloor = true
        #expect(guessed.favoursSorting(limit: 64))
    }

    @Test("few hits are sorted, a page among the few newest listings is walked to, a window is read in between")
    func strategy() {
        #expect(HitEstimate(candidates: 1_000, hits: 1_000, listings: 1_000_000).strategy(limit: 64) == .sorting)
        #expect(HitEstimate(candidates: 300_000, hits: 300_000, listings: 1_000_000).strategy(limit: 64) == .walking)
        #expect(HitEstimate(candidates: 16_000, hits: 16_000, listings: 1_000_000).strategy(limit: 64) == .window(8_000))
    }

    @Test("a first window spans twice the listings that hold a page's hits on average, a page at least, the widest window at most")
    func window() {
        #expect(HitEstimate(candidates: 16_000, hits: 16_000, listings: 1_000_000).window(limit: 64) == 8_000)
        #expect(HitEstimate(candidates: 900_000, hits: 900_000, listings: 1_000_000).window(limit: 64) == 142)
        #expect(HitEstimate(candidates: 1_000_000, hits: 1_000_000, listings: 1_000_000).window(limit: 200) == 400)
        #expect(HitEstimate(candidates: 1_000_000, hits: 1_000_000, listings: 100).window(limit: 200) == 200)
        #expect(HitEstimate(candidates: 100, hits: 100, listings: 1_000_000).window(limit: 64) == HitEstimate.widestWindow)
        #expect(HitEstimate(candidates: 0, hits: 0, listings: 1_000_000).window(limit: 64) == HitEstimate.widestWindow)
        // Overlapping alternatives: sized on the fewest the hits may be.
        #expect(HitEstimate(candidates: 32_000, hits: 32_000, listings: 1_000_000, distinctShare: 0.5).window(limit: 64) == 8_000)
    }

    @Test("the branches of a UNION ALL plan are read in order, nested lines and a parallel append included; other plans give none")
    func branchRows() {
        let plan = [
            "Append  (cost=0.00..938170.52 rows=1445496 width=4)",
            "  ->  Seq Scan on classes classes_1  (cost=0.00..331510.44 rows=293499 width=4)",
            "        Filter: (name_search @@ '''qx03d703d7'''::tsquery)",
            "  ->  Bitmap Heap Scan on classes classes_2  (cost=907.31..215971.40 rows=96943 width=4)",
            "        Recheck Cond: (name_search @@ '''qx03d703de'''::tsquery)",
            "        ->  Bitmap Index Scan on classes_by_name_search  (cost=0.00..883.07 rows=96941 width=0)",
            "  ->  Index Only Scan using classes_by_geohash on classes  (cost=0.42..47510.55 rows=1001475 width=4)",
        ]
        #expect(HitEstimate.branchRows(plan) == [293_499, 96_943, 1_001_475])
        let parallel = [
            "Gather  (cost=1000.00..9.00 rows=30 width=4)",
            "  Workers Planned: 2",
            "  ->  Parallel Append  (cost=0.00..8.00 rows=12 width=4)",
            "        ->  Parallel Seq Scan on classes classes_1  (cost=0.00..4.00 rows=10 width=4)",
            "              ->  Something nested  (cost=0.00..4.00 rows=99 width=4)",
            "        ->  Parallel Seq Scan on classes  (cost=0.00..4.00 rows=20 width=4)",
        ]
        #expect(HitEstimate.branchRows(parallel) == [10, 20])
        #expect(HitEstimate.branchRows(["Seq Scan on classes  (cost=0.00..4.00 rows=20 width=4)"]).isEmpty)
        #expect(HitEstimate.branchRows([]).isEmpty)
    }
}

/// ``HitEstimate/read(_:column:district:_:)`` against a real planner. Runs only when `CLASSTODAY_TEST_DATABASE_URL`
/// names a server.
@Suite("HitEstimate on PostgreSQL", .postgresOnly)
struct PostgresHitEstimateTests {
    static let logger = Logger(label: "test.postgres-hit-estimate")

    @Test("correlated tokens (the initial consonants of one word) are bounded by the rarest, not multiplied; a district scales the bound")
    func correlatedTokens() async throws {
        let store = try await PostgresSearchTests.openStore()
        defer { store.close() }
        let writer = try #require(try await PostgresSearchTests.insertUsers(1, store).first)
        // 400 listings named 영어회화 (a quarter of them in 동구) among 1,600 named 수학 or 기타.
        for (name, count) in [("영어회화", 400), ("수학", 800), ("기타", 800)] {
            let tokens = ClassSearchDocument.tokens(name: name, description: "")
            try await store.database.execute("""
                INSERT INTO classes (id, type, name, price_unit, writer_id, created_at, updated_at, keyword_location, name_search, search)
                SELECT \(name) || n, 'sell', \(name), 'hour', \(writer), n, n, CASE WHEN n % 4 = 0 THEN '동구' ELSE '서구' END,
                    array_to_tsvector(string_to_array(\(tokens), ' ')), array_to_tsvector(string_to_array(\(tokens), ' '))
                FROM generate_series(1, \(Int64(count))) AS n
                """)
        }
        try await store.database.execute("ANALYZE classes")
        let query = try #require(SearchTokenizer.query("ㅇㅇㅎㅎ"))
        let absent = try #require(SearchTokenizer.query("phonics"))
        let (everywhere, inDistrict, outsideNames, unknown, actual) = try await store.database.read { db in
            let actual: Int64? = try await db.rows("SELECT COUNT(*) AS count FROM classes WHERE name_search @@ \(query.tsQuery)::tsquery").first?["count"]
            return (try await HitEstimate.read(query, nameOnly: true, excludingNames: false, district: nil, db),
                    try await HitEstimate.read(query, nameOnly: true, excludingNames: false, district: "동구", db),
                    try await HitEstimate.read(query, nameOnly: false, excludingNames: true, district: nil, db),
                    try await HitEstimate.read(absent, nameOnly: false, excludingNames: true, district: nil, db), actual)
        }
        // A prefix no listing holds is estimated at the planner's floor, and sorted rather than read in windows.
        #expect(unknown.isFloor && unknown.favoursSorting(limit: 21), "\(unknown)")
        #expect(!everywhere.isFloor)
        #expect(actual == 400)
        #expect(everywhere.listings == 2_000)
        #expect(everywhere.candidates >= 300 && everywhere.candidates <= 800, "\(everywhere)")
        #expect(everywhere.hits == everywhere.candidates)
        #expect(inDistrict.candidates >= 0.2 * everywhere.candidates && inDistrict.candidates <= 0.3 * everywhere.candidates, "\(inDistrict)")
        // Every listing holding the keyword holds it in its name: outside the name tier none is left to find.
        #expect(outsideNames.candidates >= 300, "\(outsideNames)")
        #expect(outsideNames.hits < 0.1 * outsideNames.candidates, "\(outsideNames)")
    }

    @Test("each way to a relevance page (a walk, a walk given up for sorting, a window, a widened window) pages newest first, every hit once")
    func strategies() async throws {
        let store = try await PostgresSearchTests.openStore()
        defer { store.close() }
        // 12,000 listings, created one per millisecond:
        // - 수학, every third: a page lies among the newest listings, and is walked to;
        // - 기타, 2,000 among the 3,000 oldest: walked to, but not within HitEstimate.longestWalk, so sorted;
        // - 드럼, 600 among the 3,000 next oldest: a window, empty at first and widened;
        // - 요리, 800 among the 6,000 newest: a window holding the first page.
        #expect(HitEstimate.longestWalk < 12_000 - 3_000)
        let named = [
            ("수학 과외", "n % 3 = 0"), ("기타 레슨", "n % 3 <> 0 AND n <= 3000"),
            ("드럼 레슨", "n % 3 <> 0 AND n > 3000 AND n <= 6000 AND n % 10 IN (1, 2, 3)"),
            ("요리 교실", "n % 3 <> 0 AND n > 6000 AND n % 10 IN (1, 2)"),
            ("요가", "n % 3 <> 0 AND n > 3000 AND NOT ((n <= 6000 AND n % 10 IN (1, 2, 3)) OR (n > 6000 AND n % 10 IN (1, 2)))"),
        ]
        try await Self.insertListings(named, store)
        let repository = SQLClassRepository(database: store.database)
        try await store.database.execute("ANALYZE classes")
        for (word, expected, walked) in [("수학", 4_000, true), ("기타", 2_000, true), ("드럼", 600, false), ("요리", 800, false)] {
            let query = try #require(SearchTokenizer.query(word))
            let strategy = try await store.database.read { db in
                try await HitEstimate.read(query, nameOnly: true, excludingNames: false, district: nil, db).strategy(limit: 101)
            }
            if walked {
                #expect(strategy == .walking, "\(word)")
            } else {
                guard case .window = strategy else { Issue.record("\(word): \(strategy)"); continue }
            }
            var search = ClassSearch()
            search.keyword = SearchTokenizer.query(word)
            search.sort = .relevance
            let names = try await PostgresSearchTests.allPages(search, limit: 100, repository).map(\.listing)
            #expect(names.count == expected, "\(word)")
            #expect(names.allSatisfy { $0.name.hasPrefix(word) }, "\(word)")
            #expect(names.map(\.createdAt) == names.map(\.createdAt).sorted(by: >), "\(word): newest first")
        }
    }

    @Test("a walk holding fewer hits than its limit but enough for the page returns them, and the pages go on newest first, every hit once")
    func shortWalk() async throws {
        let store = try await PostgresSearchTests.openStore()
        defer { store.close() }
        // 12,000 listings, created one per millisecond: 피아노, 30 among the 1,000 newest and 1,500 among the 3,000 oldest,
        // which also hold 1,500 of 피아, a candidate of the typo-tolerant 피아노 that it does not match. The candidates
        // are many, so a walk is chosen; it finds 30 within HitEstimate.longestWalk.
        #expect(HitEstimate.longestWalk < 12_000 - 3_000)
        let named = [
            ("피아노 레슨", "(n > 11000 AND n % 33 = 0) OR (n <= 3000 AND n % 2 = 1)"), ("피아 교실", "n <= 3000 AND n % 2 = 0"),
            ("요가", "n > 3000 AND NOT (n > 11000 AND n % 33 = 0)"),
        ]
        try await Self.insertListings(named, store)
        try await store.database.execute("ANALYZE classes")
        let query = try #require(SearchTokenizer.query("피아노"))
        #expect(query.needsVerification)
        let hits = try await store.database.read { db in
            let strategy = try await HitEstimate.read(query, nameOnly: true, excludingNames: false, district: nil, db).strategy(limit: 64)
            #expect(strategy == .walking)
            return try await TSVectorClassIndex().newest(query, nameOnly: true, district: nil, columns: "c.id, c.created_at", conditions: [],
                                                         after: nil, limit: 64, enough: 21, db)
        }
        #expect(hits.rows.count == 30 && hits.mayContinue, "the walk's hits, not all hits sorted")
        var search = ClassSearch()
        search.keyword = query
        search.sort = .relevance
        let listings = try await PostgresSearchTests.allPages(search, limit: 20, SQLClassRepository(database: store.database)).map(\.listing)
        #expect(listings.count == 1_530)
        #expect(listings.allSatisfy { $0.name == "피아노 레슨" })
        #expect(listings.map(\.createdAt) == listings.map(\.createdAt).sorted(by: >), "newest first")
    }

    /// Inserts 12,000 listings `n` of one writer, created one per millisecond (`n` = 1 oldest): each named by the first
    /// name whose SQL condition over `n` holds, tokens and all.
    private static func insertListings(_ named: [(name: String, condition: String)], _ store: PostgresStore) async throws {
        let writer = try #require(try await PostgresSearchTests.insertUsers(1, store).first)
        for (name, condition) in named {
            let tokens = ClassSearchDocument.tokens(name: name, description: "")
            try await store.database.execute("""
                INSERT INTO classes (id, type, name, price_unit, writer_id, created_at, updated_at, name_search, search)
                SELECT 'c' || lpad(n::text, 5, '0'), 'sell', \(name), 'hour', \(writer), 1700000000000 + n, 1700000000000 + n,
                    array_to_tsvector(string_to_array(\(tokens), ' ')), array_to_tsvector(string_to_array(\(tokens), ' '))
                FROM generate_series(1, 12000) AS n WHERE \(raw: condition)
                """)
        }
    }
}
