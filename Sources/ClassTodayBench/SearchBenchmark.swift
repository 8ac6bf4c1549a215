import ClassTodayCore
import ClassTodayServer
import ClassTodaySeed
import Foundation
import GRDB
import Logging
import PostgresNIO
import Synchronization

/// `classtoday-bench search`: seeds (or reuses) a realistic dataset, then answers a fixed random set of queries
/// three ways — the geohash search the server uses, a full scan, and SQLite's R*Tree module — and reports
/// latency percentiles, candidates examined per result, and the ratios between the three. Given a PostgreSQL
/// database, it seeds the same dataset there too and answers every query on both backends in the same run. Given a
/// PostGIS database (``Options/peers``), the circle rows are also asked of PostGIS and of the server over HTTP, with a
/// profile of where a page's time goes.
public struct SearchBenchmark: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// Listings in the dataset.
        public var classes = 1_000_000
        /// Queries per radius and per keyword kind.
        public var queries = 300
        /// Full-scan runs per kind (a full scan of a million rows is slow; a few runs give a stable median).
        public var fullScanQueries = 15
        /// The first page size.
        public var limit = 20
        /// The dataset's random seed.
        public var seed: UInt64 = 2026
        /// The query kinds to run: circles (one row per radius), keywords (alone and with a circle), and blocks (circles
        /// by a viewer who blocked many writers; not run unless asked for).
        public var kinds: Set<Kind> = [.circle, .keyword]
        /// A PostGIS-enabled PostgreSQL database (`postgres://...`): the dataset's points are loaded there (and kept), and
        /// every circle query is asked of PostGIS and of the server over HTTP as well.
        public var peers: String?

        /// The defaults: a million listings, 300 queries per kind.
        public init() {}
    }

    let options: Options
    let store: SQLiteStore
    /// The same dataset in PostgreSQL, when the configuration names a PostgreSQL database.
    let postgres: PostgresStore?
    /// The dataset's points in PostGIS, when ``Options/peers`` names a database.
    let postgis: PostGISPeer?
    /// The configuration the benchmark was prepared with, to serve the dataset over HTTP.
    let configuration: AppConfiguration
    /// The SQLite dataset's file.
    let path: String
    let logger: Logger

    /// Opens (creating, migrating and seeding when needed) the benchmark database `bench-search-<classes>.sqlite`
    /// in `configuration`'s data folder; it is kept for later runs. When `configuration` names a PostgreSQL
    /// database, the same dataset is seeded there as well (and kept); so are its points in ``Options/peers``' PostGIS.
    public static func prepare(
        _ options: Options, configuration: AppConfiguration, logger: Logger, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws -> SearchBenchmark {
        let path = (configuration.dataDirectory as NSString).appendingPathComponent("bench-search-\(options.classes).sqlite")
        let store = try SQLiteStore.open(path: path, durableCommits: false)
        try await store.migrate(try Migration.load(from: (configuration.migrationsDirectory as NSString).appendingPathComponent("sqlite")), logger: logger)
        // Seeded users never log in here; a fixed bcrypt hash of a random password keeps seeding fast.
        let hash = "$2b$04$C6UzMDM.H6dfI/f/IKxGhuY8y5v3oAnxbWrjrZnnTlmXeAVsQXrjS"
        func seed(_ target: any SeedTarget) async throws {
            try await Seeder(target: target).seed(users: max(1, options.classes / 20), classes: options.classes, seed: options.seed,
                                                  passwordHash: hash, batchSize: 20_000, logger: logger, progress: progress)
        }
        try await seed(SQLSeedTarget(database: store.database))
        try await store.writer.write { db in
            if try !db.tableExists("sqlite_stat1") { try db.execute(sql: "ANALYZE") }
            try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS bench_rtree USING rtree(id, minLat, maxLat, minLon, maxLon)")
            // Keyed by the classes' rowids, which a migration may have renumbered: rebuilt when they differ.
            let newest = "SELECT MAX(rowid) FROM classes WHERE lat IS NOT NULL"
            if try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM bench_rtree") != Int64.fetchOne(db, sql: newest) {
                try db.execute(sql: "DELETE FROM bench_rtree")
                try db.execute(sql: "INSERT INTO bench_rtree SELECT rowid, lat, lat, lon, lon FROM classes WHERE lat IS NOT NULL")
            }
        }
        var postgres: PostgresStore?
        if let url = configuration.databaseURL {
            let opened = try PostgresStore.open(url: url, logger: logger)
            postgres = opened
            try await opened.migrate(try Migration.load(from: (configuration.migrationsDirectory as NSString).appendingPathComponent("postgres")),
                                     logger: logger)
            try await seed(SQLSeedTarget(database: opened.database))
            // As autovacuum would in time: a freshly seeded table's visibility map is unset, and the index-only reads of
            // the relevance windows then fetched every tuple from the heap (35 of a read's 44 ms).
            try await opened.client.query("VACUUM (ANALYZE)", logger: logger)
        }
        var postgis: PostGISPeer?
        if let url = options.peers {
            postgis = try await PostGISPeer.prepare(url: url, points: store, logger: logger)
        }
        return SearchBenchmark(options: options, store: store, postgres: postgres, postgis: postgis, configuration: configuration, path: path,
                               logger: logger)
    }

    /// One line of the report.
    struct Row {
        let kind: String
        let indexed: LatencySample
        let candidatesPerResult: Double
        let fullScan: LatencySample
        let rtree: LatencySample?
        /// The same queries on PostgreSQL: the server's search and a full scan.
        let postgres: PostgresSample?
        /// The same circles asked of PostGIS and of the server over HTTP.
        var peers: PeerSample? = nil
        /// Warm reads of the same circles from the listings' points and walked with SQL (``ClassPointIndex`` not lent),
        /// and how many pages differed.
        var walked: (points: LatencySample, walk: LatencySample, pagesDiffering: Int)? = nil
        /// The row's slowest queries, slowest first (keyword rows).
        var slowest: [SlowQuery] = []
    }

    /// One query of a row and what it took on each backend, to find where a row's high percentiles come from.
    struct SlowQuery {
        /// The keyword, and where it was asked.
        let query: String
        /// The search itself, to name the plans that answer it (``SearchBenchmark/namingPlans(of:)``).
        let search: ClassSearch
        let sqlite: Double
        let postgres: Double?
        /// What the bench's process waited on while SQLite answered.
        let sqliteWaits: Waits
        /// The plans that answered it (``SearchPlanName``), SQLite's and PostgreSQL's when asked, once named.
        var plans: (sqlite: String, postgres: String?)?

        /// The slower of the two backends' times, in milliseconds.
        var slower: Double { max(sqlite, postgres ?? 0) }

        /// What the bench's process waited on while a query ran, each nil where the OS does not say, so that a query
        /// slow for the machine shows as such.
        struct Waits {
            /// The bytes it read from storage (`read_bytes` of `/proc/self/io`): a page whose file pages the OS no
            /// longer held, or had taken back, read them from the disk.
            var storageReads: Int64?
            /// The longest any of its threads waited for a CPU while ready to run, in nanoseconds (`run_delay`, the
            /// second field of `/proc/self/task/*/schedstat`, of the threads there before and after): a query whose
            /// thread waited was held up by the machine's other work. The longest, not the sum: threads wait at once.
            var cpuWait: Int64?

            /// What `body` returns, and what this process waited on while it ran.
            static func measuring<Value>(_ body: () async throws -> Value) async rethrows -> (Value, waits: Waits) {
                let (reads, delays) = (SearchBenchmark.number("read_bytes", in: "/proc/self/io"), runDelays())
                let value = try await body()
                let (readsAfter, delaysAfter) = (SearchBenchmark.number("read_bytes", in: "/proc/self/io"), runDelays())
                let cpuWait = delays.flatMap { delays in
                    delaysAfter.map { after in after.map { thread, delay in delay - (delays[thread] ?? delay) }.max() ?? 0 }
                }
                return (value, Waits(storageReads: reads.flatMap { reads in readsAfter.map { $0 - reads } }, cpuWait: cpuWait))
            }

            /// Each of this process's threads' time spent waiting for a CPU so far, in nanoseconds, by thread id.
            private static func runDelays() -> [String: Int64]? {
                guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
                var delays: [String: Int64] = [:]
                for thread in threads {
                    guard let text = try? String(contentsOfFile: "/proc/self/task/\(thread)/schedstat", encoding: .utf8) else { continue }
                    let fields = text.split(separator: " ")
                    if fields.count >= 2, let delay = Int64(fields[1]) { delays[thread] = delay }
                }
                return delays
            }

            /// The shortest wait for a CPU the report names, in nanoseconds: on two cores shared with a database server,
            /// some thread of the bench waits a millisecond or two in many queries, fast ones too.
            static let namedCPUWait: Int64 = 5_000_000

            /// The waits worth naming, for the report: storage read, and a CPU waited for ``namedCPUWait`` or more.
            var reportText: String? {
                var parts: [String] = []
                if let storageReads, storageReads > 0 { parts.append("SQLite read \(storageReads / 1024) KB from storage") }
                if let cpuWait, cpuWait >= Self.namedCPUWait {
                    parts.append(String(format: "a thread waited %.1f ms for a CPU", Double(cpuWait) / 1e6))
                }
                return parts.isEmpty ? nil : parts.joined(separator: ", ")
            }
        }

        /// `query`'s line in the report: both backends' times and plans, and what the process waited on, if anything.
        var reportText: String {
            var times = "\(query) \(LatencySample.format(sqlite, decimals: 1)) / \(LatencySample.format(postgres ?? .nan, decimals: 1))"
            if let plans { times += " [\(plans.sqlite)\(plans.postgres.map { " / \($0)" } ?? "")]" }
            return sqliteWaits.reportText.map { times + " (\($0))" } ?? times
        }

        /// How many of each keyword row's queries the report names.
        static let reported = 3

        /// The ``reported`` slowest of `queries`, slowest first.
        static func slowest(of queries: [SlowQuery]) -> [SlowQuery] {
            Array(queries.sorted { $0.slower > $1.slower }.prefix(reported))
        }
    }

    /// A family of query kinds, to run part of the report.
    public enum Kind: String, Sendable, CaseIterable {
        /// Circles of 500 m, 2 km, 10 km and 50 km, nearest first.
        case circle
        /// Keywords by relevance (1, 2 and 3+ syllables, Latin words, initial consonants), 2-syllable keywords with
        /// a 5 km circle nearest first, and rare words with a 50 km circle.
        case keyword
        /// Circles searched anonymously, by a viewer, and by a viewer who blocked many writers.
        case blocks
        /// Circles within a district (`keywordLocation`) nearest first: 5 km around a place within its own district,
        /// and 50 km within another place's, which the circle may not reach.
        case district
        /// Circles with filters nearest first: a subject within 10 km, a price floor within 3 km, and subjects, targets,
        /// days and a price ceiling that few listings pass within 50 km.
        case filters
    }

    /// Runs the chosen query kinds and returns the report's lines; with ``Options/peers``, while the server answers
    /// HTTP on loopback over the same dataset, and a second server over its PostgreSQL copy when the bench has one.
    public func run() async throws -> [String] {
        guard let postgis, options.kinds.contains(.circle) else { return try await run(peers: nil) }
        let warmUpCircles = Self.warmUpCircles(seed: options.seed)
        return try await HTTPPeer.serving("sqlite://" + path, configuration: configuration, logger: logger) { http in
            try await http.warmUp(warmUpCircles, limit: options.limit)
            guard postgres != nil, let url = configuration.databaseURL else {
                return try await run(peers: Peers(postgis: postgis, http: http, postgresHTTP: nil))
            }
            return try await HTTPPeer.serving(url, configuration: configuration, logger: logger) { postgresHTTP in
                try await postgresHTTP.warmUp(warmUpCircles, limit: options.limit)
                return try await run(peers: Peers(postgis: postgis, http: http, postgresHTTP: postgresHTTP))
            }
        }
    }

    /// Searches at places other than the timed ones, which bring the server in-process and over HTTP, and PostGIS, to the
    /// state of one that has served a while before it is timed (``HTTPPeer/warmUp(_:limit:)``): 100 circles of each radius.
    private static func warmUpCircles(seed: UInt64) -> [ClassSearch.Circle] {
        var random = SyntheticData(seed: seed &+ 11)
        return (0..<400).map { index in
            ClassSearch.Circle(center: random.location().point, radius: circleRadii[index % circleRadii.count])
        }
    }

    /// The nearest-first search of `circle`.
    static func nearestFirst(_ circle: ClassSearch.Circle) -> ClassSearch {
        var query = ClassSearch()
        query.circle = circle
        query.sort = .distance
        return query
    }

    /// The radii of the circle rows, in metres.
    static let circleRadii: [Double] = [500, 2_000, 10_000, 50_000]

    private func run(peers: Peers?) async throws -> [String] {
        var random = SyntheticData(seed: options.seed &+ 7)
        let places = (0..<options.queries).map { _ in random.location() }
        let centers = places.map(\.point)
        let keywords = ["수학", "영어", "요가", "토익", "기타", "코딩", "과외"]
        var rows: [Row] = []
        // What was read before any search is timed, and how long it took.
        var readFirst = [try readFileIntoPageCache()]
        if let postgres {
            readFirst.append(try await Self.layOutByLocation(postgres))
            readFirst.append(try await Self.prewarm(postgres, as: "PostgreSQL"))
        }
        if let peers { readFirst.append(try await Self.prewarm(peers.postgis.store, as: "PostGIS")) }
        readFirst.append(try await readPoints())
        if options.kinds.contains(.circle) {
            // The server in-process, like the one over HTTP, and PostGIS are timed as ones that have served a while.
            for circle in Self.warmUpCircles(seed: options.seed) {
                _ = try await timedPage(search(Self.nearestFirst(circle)))
                _ = try await peers?.postgis.nearest(center: circle.center, radius: circle.radius, limit: options.limit + 1)
            }
            for radius in Self.circleRadii {
                rows.append(try await circleRow(radius: radius, centers: centers, peers: peers))
            }
        }
        if options.kinds.contains(.keyword) {
            for (label, words) in Self.keywordKinds {
                rows.append(try await keywordRow(label, keywords: words, scope: .everywhere))
            }
            rows.append(try await keywordRow("keyword + 5 km circle", keywords: keywords, scope: .circle(centers, radius: 5_000)))
            rows.append(try await keywordRow("rare word + 50 km circle", keywords: Self.rareKeywords, scope: .circle(centers, radius: 50_000)))
            rows.append(try await keywordRow("keyword + district", keywords: keywords, scope: .district(places.map(\.district))))
        }
        if options.kinds.contains(.district) {
            let districts = places.map(\.district)
            rows.append(try await districtRow("own district + 5 km", radius: 5_000, centers: centers, districts: districts))
            let others = Array(districts.dropFirst() + districts.prefix(1))
            rows.append(try await districtRow("other district + 50 km", radius: 50_000, centers: centers, districts: others))
        }
        if options.kinds.contains(.filters) {
            rows += try await filterRows(centers: centers)
        }
        let count = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM classes") ?? 0 }
        var lines = readFirst + (rows.isEmpty ? [] : report(rows, classes: count))
        if options.kinds.contains(.blocks) {
            lines += try await blockRows(centers: centers)
        }
        if let peers {
            let paths = centers.map { HTTPPeer.searchPath(ClassSearch.Circle(center: $0, radius: 2_000), limit: options.limit) }
            lines += try Throughput(http: peers.http).report(pagePaths: paths, label: "2 km circle page")
            if let url = options.peers {
                lines += try LeanClients(http: peers.http, postgisURL: url).report(radii: Self.circleRadii, centers: centers, limit: options.limit)
            }
        }
        return lines
    }

    /// Reads the dataset's file once, front to back, before any search is timed, so that the OS holds it in its page
    /// cache as it holds the file of a server that has served a while; says how long it took. Skipped, and said so,
    /// when the file would take more than half the memory available.
    ///
    /// Without it, a run's first reads of a keyword's postings came from the disk whenever the machine had dropped the
    /// file from its cache (after another database's load, or a restart): `matlab` within 50 km took 29-33 ms in such a
    /// run's first reads, against 8 ms in the next run's, and a run's p99 was the disk's. A machine that reclaims memory
    /// left idle takes pages back during the run all the same; the slowest queries say what they read from storage.
    private func readFileIntoPageCache() throws -> String {
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        let gigabytes = String(format: "%.1f GB", Double(size) / 1e9)
        guard let available = Self.availableMemory(), size <= available / 2 else {
            return "database file (\(gigabytes)) not read into the OS page cache first: more than half the memory available"
        }
        let start = ContinuousClock.now
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? file.close() }
        while let chunk = try file.read(upToCount: 8 << 20), !chunk.isEmpty {}
        return "database file (\(gigabytes)) read into the OS page cache first, as a server that has served a while holds it: "
            + "\(ContinuousClock.now - start)"
    }

    /// The memory the OS says is available for new work without swapping (`MemAvailable`), in bytes; nil when it does not say.
    private static func availableMemory() -> Int64? {
        number("MemAvailable", in: "/proc/meminfo").map { $0 * 1024 }
    }

    /// The number on the line `key:` of the OS's statistics file `path` (`/proc/self/io`, `/proc/meminfo`), without its
    /// unit; nil where the OS has no such file or line.
    static func number(_ key: String, in path: String) -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
        else { return nil }
        return line.dropFirst(key.count + 1).split(separator: " ").first.flatMap { Int64($0) }
    }

    /// Reads the listings' points into memory before any search is timed, as a server does when it starts
    /// (``ClassPointIndex``), and says how long it took and what the points hold.
    private func readPoints() async throws -> String {
        let start = ContinuousClock.now
        let points = try await store.database.read { db in try await db.classPoints?.points(db) }
        guard let points else { return "listings' points in memory: not held (circles walk with SQL)" }
        let megabytes = Double(points.heldBytes) / 1_048_576
        return "listings' points in memory: \(points.count) read in \(ContinuousClock.now - start), holding \(String(format: "%.0f", megabytes)) MB"
    }

    func search(_ search: ClassSearch) -> SQLClassSearch {
        SQLClassSearch(search: search, page: PageRequest(limit: options.limit), viewerId: nil, dialect: .sqlite)
    }

    private func circleRow(radius: Double, centers: [GeoPoint], peers: Peers?) async throws -> Row {
        var indexed = LatencySample(), fullScan = LatencySample(), rtree = LatencySample()
        var postgresSample = postgres.map { store in
            PostgresSample(store: store, sqlite: self.store.database, limit: options.limit, logger: logger,
                           http: peers.flatMap { peers in peers.postgresHTTP.map { (sqlite: peers.http, postgres: $0) } })
        }
        var peerSample = peers.map { PeerSample(peers: $0, limit: options.limit, logger: logger) }
        var candidates = 0, results = 0
        var walked = LatencySample(), fromPoints = LatencySample(), walkedDiffering = 0
        for (index, center) in centers.enumerated() {
            let query = Self.nearestFirst(ClassSearch.Circle(center: center, radius: radius))
            let searcher = search(query)
            let answer = try await timedPage(searcher)
            let page = answer.page
            let ids = page.items.map(\.listing.id)
            indexed.record(answer.elapsed)
            let (again, walk) = try await readBothWays(searcher, walkFirst: index % 2 == 1)
            walked.record(walk.elapsed)
            fromPoints.record(again.elapsed)
            if walk.page.items.map(\.listing.id) != ids { walkedDiffering += 1 }
            try await peerSample?.record(query, page: page) { try await timedPage(searcher) }
            try await postgresSample?.record(query, sqlitePage: page, fullScan: index < options.fullScanQueries)
            candidates += try await countRows(in: walk.readRanges)
            results += ids.count
            let (rtreeIds, rtreeElapsed) = try await rtreeSearch(center: center, radius: radius)
            rtree.record(rtreeElapsed)
            if rtreeIds != ids {
                logger.error("R*Tree and geohash searches disagree", metadata: ["center": "\(center)", "radius": "\(radius)"])
            }
            if index < options.fullScanQueries {
                fullScan.record(try await fullScanSearch(center: center, radius: radius, keyword: nil))
            }
        }
        try await postgresSample?.recordAlone(centers.map { Self.nearestFirst(ClassSearch.Circle(center: $0, radius: radius)) })
        return Row(kind: "circle \(Int(radius)) m", indexed: indexed, candidatesPerResult: Double(candidates) / Double(max(results, 1)),
                   fullScan: fullScan, rtree: rtree, postgres: postgresSample, peers: peerSample,
                   walked: (fromPoints, walked, walkedDiffering))
    }

    /// The same page read again from the listings' points and walked with SQL, the walk first when `walkFirst`: warm
    /// reads, as the first read paid for the listings' pages.
    func readBothWays(_ searcher: SQLClassSearch, walkFirst: Bool) async throws -> (points: TimedPage, walk: TimedPage) {
        let earlier = try await timedPage(searcher, lendingPoints: !walkFirst)
        let later = try await timedPage(searcher, lendingPoints: walkFirst)
        return walkFirst ? (later, earlier) : (earlier, later)
    }

    /// A page as the server reads it in-process, timed.
    struct TimedPage: Sendable {
        /// The page.
        let page: Page<ClassView>
        /// The search's time inside its read.
        let elapsed: Duration
        /// The time of the whole read: lending a reader connection to the search and giving it back included.
        let leased: Duration
        /// The geohash ranges whose listings the search read.
        let readRanges: [GeohashRange]
        /// What its statements took.
        let statements: StatementProfile
    }

    /// Runs `searcher` in one read, through an executor that records its statements and lends the listings' points
    /// unless `lendingPoints` is false (circles then walk with SQL).
    func timedPage(_ searcher: SQLClassSearch, lendingPoints: Bool = true) async throws -> TimedPage {
        let leaseStart = ContinuousClock.now
        let (page, elapsed, recorder) = try await store.database.read { db in
            let recorder = RecordingExecutor(db, lendingPoints: lendingPoints)
            let start = ContinuousClock.now
            let page = try await searcher.run(recorder)
            return (page, ContinuousClock.now - start, recorder)
        }
        let leased = ContinuousClock.now - leaseStart
        return TimedPage(page: page, elapsed: elapsed, leased: leased, readRanges: recorder.readRanges, statements: recorder.profile)
    }

    /// The keyword rows by relevance: their labels and words, each word asked in turn.
    static let keywordKinds: [(String, [String])] = [
        ("keyword, 1 syllable", ["수", "영", "요", "기", "학"]),
        ("keyword, 2 syllables", ["수학", "영어", "요가", "토익", "기타", "코딩", "과외"]),
        ("keyword, 3+ syllables", ["피아노", "바이올린", "영어회화", "일본어", "중국어", "공업수학"]),
        ("keyword, Latin word", ["toeic", "english", "jlpt", "matlab", "phonics"]),
        ("initial consonants", ["ㅅㅎ", "ㅇㅇ", "ㄱㅌ", "ㅍㅇㄴ", "ㅇㅇㅎㅎ"]),
    ]

    /// Words held by few listings, or by none (`없는말`), and typo-tolerant words whose candidates are many more than
    /// their matches: a large circle nearest first reads far for them.
    static let rareKeywords = ["jlpt", "matlab", "phonics", "없는말", "공업수학", "바이올린"]

    /// Where a keyword row's queries look, query by query.
    private enum KeywordScope {
        /// Everywhere, by relevance.
        case everywhere
        /// Within `radius` metres of each centre, nearest first.
        case circle([GeoPoint], radius: Double)
        /// In each district (`keywordLocation`), by relevance.
        case district([String])
    }

    private func keywordRow(_ label: String, keywords: [String], scope: KeywordScope) async throws -> Row {
        var indexed = LatencySample(), fullScan = LatencySample()
        var postgresSample = postgres.map { PostgresSample(store: $0, sqlite: store.database, limit: options.limit, logger: logger) }
        var candidates = 0, results = 0
        var queries: [SlowQuery] = []
        for index in 0..<options.queries {
            let keyword = keywords[index % keywords.count]
            var query = ClassSearch()
            query.keyword = SearchTokenizer.query(keyword)
            switch scope {
            case .everywhere:
                query.sort = .relevance
            case .circle(let centers, let radius):
                query.circle = .init(center: centers[index], radius: radius)
                query.sort = .distance
            case .district(let districts):
                query.keywordLocation = districts[index]
                query.sort = .relevance
            }
            let searcher = search(query)
            let ((page, elapsed), waits) = try await SlowQuery.Waits.measuring {
                try await store.database.read { db in
                    let start = ContinuousClock.now
                    let page = try await searcher.run(db)
                    return (page, ContinuousClock.now - start)
                }
            }
            indexed.record(elapsed)
            results += page.items.count
            try await postgresSample?.record(query, sqlitePage: page, fullScan: index < options.fullScanQueries)
            let place = query.circle.map { String(format: " within %.0f m of %.4f, %.4f", $0.radius, $0.center.lat, $0.center.lon) }
                ?? query.keywordLocation.map { " in \($0)" } ?? ""
            queries.append(SlowQuery(query: keyword + place, search: query, sqlite: indexed.milliseconds.last ?? .nan,
                                     postgres: postgresSample?.search.milliseconds.last, sqliteWaits: waits))
            let match = query.keyword.map { ClassSearchDocument.match($0) }
            candidates += try await store.database.row("SELECT COUNT(*) AS count FROM class_search WHERE class_search MATCH \(match)")?["count"] ?? 0
            if index < options.fullScanQueries {
                fullScan.record(try await fullScanSearch(center: query.circle?.center, radius: query.circle?.radius ?? 0, keyword: keyword))
            }
        }
        return Row(kind: label, indexed: indexed,
                   candidatesPerResult: Double(candidates) / Double(max(results, 1)), fullScan: fullScan, rtree: nil,
                   postgres: postgresSample, slowest: try await namingPlans(of: SlowQuery.slowest(of: queries)))
    }

    /// Circles of `radius` around `centers`, each within the district of the same index, nearest first; the candidates
    /// per result are the listings of the geohash ranges the walks read.
    private func districtRow(_ label: String, radius: Double, centers: [GeoPoint], districts: [String]) async throws -> Row {
        var indexed = LatencySample()
        var postgresSample = postgres.map { PostgresSample(store: $0, sqlite: store.database, limit: options.limit, logger: logger) }
        var candidates = 0, results = 0
        var queries: [SlowQuery] = []
        for (center, district) in zip(centers, districts) {
            var query = Self.nearestFirst(ClassSearch.Circle(center: center, radius: radius))
            query.keywordLocation = district
            let (answer, waits) = try await SlowQuery.Waits.measuring { try await timedPage(search(query)) }
            indexed.record(answer.elapsed)
            results += answer.page.items.count
            candidates += try await countRows(in: answer.readRanges)
            try await postgresSample?.record(query, sqlitePage: answer.page, fullScan: false)
            queries.append(SlowQuery(query: String(format: "%@ within %.0f m of %.4f, %.4f", district, radius, center.lat, center.lon),
                                     search: query, sqlite: indexed.milliseconds.last ?? .nan, postgres: postgresSample?.search.milliseconds.last,
                                     sqliteWaits: waits))
        }
        return Row(kind: label, indexed: indexed, candidatesPerResult: Double(candidates) / Double(max(results, 1)), fullScan: LatencySample(),
                   rtree: nil, postgres: postgresSample, slowest: try await namingPlans(of: SlowQuery.slowest(of: queries)))
    }

    func countRows(in ranges: [GeohashRange]) async throws -> Int {
        guard !ranges.isEmpty else { return 0 }
        return try await store.writer.read { db in
            var total = 0
            for range in ranges {
                total += try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM classes INDEXED BY classes_by_geohash WHERE geohash >= ? AND geohash < ?",
                                          arguments: [range.lower, range.upper]) ?? 0
            }
            return total
        }
    }

    /// The same first page through the R*Tree: the circle's bounding box from the tree, then the exact distance,
    /// then the page's listings read the same way as the geohash search reads them.
    private func rtreeSearch(center: GeoPoint, radius: Double) async throws -> ([String], Duration) {
        let limit = options.limit
        return try await store.database.read { db in
            let start = ContinuousClock.now
            let latDelta = radius / Haversine.earthRadiusMeters * 180 / .pi
            let lonDelta = latDelta / max(cos(center.lat * .pi / 180), 1e-6)
            let ids: [String] = try await db.rows("""
                SELECT c.id FROM bench_rtree r JOIN classes c ON c.rowid = r.id
                WHERE r.minLat >= \(center.lat - latDelta) AND r.maxLat <= \(center.lat + latDelta)
                  AND r.minLon >= \(center.lon - lonDelta) AND r.maxLon <= \(center.lon + lonDelta)
                  AND c.deleted_at IS NULL AND c.status = 'open' AND ct_distance(c.lat, c.lon, \(center.lat), \(center.lon)) <= \(radius)
                ORDER BY ct_distance(c.lat, c.lon, \(center.lat), \(center.lon)), c.id LIMIT \(limit)
                """).map { try $0["id"] }
            _ = try await ClassViewQuery.views(ids: ids, viewerId: nil, db)
            return (ids, ContinuousClock.now - start)
        }
    }

    /// The same first page by reading every listing.
    private func fullScanSearch(center: GeoPoint?, radius: Double, keyword: String?) async throws -> Duration {
        let limit = options.limit
        return try await store.database.read { db in
            let start = ContinuousClock.now
            var statement: SQLStatement = "SELECT c.id FROM classes c NOT INDEXED WHERE c.deleted_at IS NULL AND c.status = 'open'"
            if let keyword { statement.append(" AND ct_matches(\(keyword), c.name, c.description)") }
            if let center {
                statement.append("""
                     AND ct_distance(c.lat, c.lon, \(center.lat), \(center.lon)) <= \(radius)
                    ORDER BY ct_distance(c.lat, c.lon, \(center.lat), \(center.lon)), c.id LIMIT \(limit)
                    """)
            } else {
                statement.append(" ORDER BY c.created_at DESC, c.id LIMIT \(limit)")
            }
            let ids: [String] = try await db.rows(statement).map { try $0["id"] }
            _ = try await ClassViewQuery.views(ids: ids, viewerId: nil, db)
            return ContinuousClock.now - start
        }
    }

    private func report(_ rows: [Row], classes: Int) -> [String] {
        var lines = [
            "search benchmark: \(classes) classes, \(options.queries) queries per kind, first page of \(options.limit)",
            "(geohash: the server's search; full scan: \(options.fullScanQueries) runs per kind; R*Tree: SQLite rtree bounding box + exact distance)",
            "",
            "kind                     geohash p50  geohash p99  cand/result  full-scan p50  R*Tree p50  R*Tree p99  scan/geohash  R*Tree/geohash",
        ]
        for row in rows {
            let scanRatio = row.fullScan.median / row.indexed.median
            let rtreeRatio = row.rtree.map { $0.median / row.indexed.median }
            lines.append(.reportLine(row.kind, [
                (LatencySample.format(row.indexed.median), 12), (LatencySample.format(row.indexed.p99), 13),
                (String(format: "%.1f", row.candidatesPerResult), 13), (LatencySample.format(row.fullScan.median), 15),
                (LatencySample.format(row.rtree?.median ?? .nan), 12), (LatencySample.format(row.rtree?.p99 ?? .nan), 12),
                (LatencySample.ratio(scanRatio, decimals: 0), 14), (rtreeRatio.map { LatencySample.ratio($0) } ?? "-", 16),
            ]))
        }
        lines.append("")
        lines.append("latencies in ms (median and 99th percentile); ratios are medians of the same queries measured in this run")
        let walks = rows.compactMap { row in row.walked.map { (row, $0) } }
        if !walks.isEmpty {
            lines += ["", "circles from the listings' points in memory against the SQL walk over the geohash index: each query read again both ways",
                      "right after its first read, in turn first (warm); a filtered walk ends a page early at its budget, which differs",
                      "kind                     points p50  points p99  walk p50  walk p99  walk/points  pages differing"]
            for (row, walk) in walks {
                lines.append(.reportLine(row.kind, [
                    (LatencySample.format(walk.points.median), 11), (LatencySample.format(walk.points.p99), 12),
                    (LatencySample.format(walk.walk.median), 10), (LatencySample.format(walk.walk.p99), 10),
                    (LatencySample.ratio(walk.walk.median / walk.points.median), 13), ("\(walk.pagesDiffering)", 17),
                ]))
            }
        }
        if rows.contains(where: { $0.postgres != nil }) {
            lines += PostgresSample.report(rows.compactMap { row in row.postgres.map { (row.kind, row.indexed, $0) } },
                                           fullScanQueries: options.fullScanQueries)
        }
        let slow = rows.filter { !$0.slowest.isEmpty }
        if !slow.isEmpty {
            lines += ["", "each keyword and district row's \(SlowQuery.reported) slowest queries, in ms (SQLite / PostgreSQL), [the plans that answered them], with what the bench's "
                      + "process waited on while SQLite answered (background keyword counts included): storage it read, and a CPU one of its "
                      + "threads waited \(SlowQuery.Waits.namedCPUWait / 1_000_000) ms or more for"]
            for row in slow {
                lines.append("\(row.kind): " + row.slowest.map(\.reportText).joined(separator: "; "))
            }
        }
        if let postgis, rows.contains(where: { $0.peers != nil }) {
            lines += PeerSample.report(rows.compactMap { row in row.peers.map { (row.kind, row.indexed, $0) } }, postgis: postgis)
        }
        return lines
    }
}

extension String {
    /// The string right-aligned in `width` columns.
    func leftPadded(_ width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }

    /// A report table's line: `kind` in the first 24 columns, then each cell's text right-aligned in its width.
    static func reportLine(_ kind: String, _ cells: [(text: String, width: Int)]) -> String {
        cells.reduce(kind.padding(toLength: 24, withPad: " ", startingAt: 0)) { line, cell in line + cell.text.leftPadded(cell.width) }
    }
}

/// An executor that records the statements a search runs and how long each took: to count the candidates of the
/// geohash ranges it read, and for the profile of a page. While the search runs it only notes each statement and its
/// time; what they were is worked out afterwards (``profile``, ``readRanges``), outside the timed read, so that the
/// bench's own bookkeeping is not counted as the search's.
private final class RecordingExecutor: SQLExecutor {
    /// A statement run, how long it took, and whether it read listings (a crowded cell's statement reads none).
    private struct Entry {
        let statement: SQLStatement
        let elapsed: Duration
        var readListings = true
    }

    private let base: any SQLExecutor
    private let entries = Mutex<[Entry]>([])

    /// Records what runs on `base`, lending its listings' points only when `lendingPoints`.
    init(_ base: any SQLExecutor, lendingPoints: Bool = true) {
        self.base = base
        self.lendingPoints = lendingPoints
    }

    private let lendingPoints: Bool

    var dialect: SQLDialect { base.dialect }

    var classPoints: ClassPointIndex? { lendingPoints ? base.classPoints : nil }

    var tokenCounts: TokenCounts? { base.tokenCounts }

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        let (rows, elapsed) = try await timed { try await base.rows(statement) }
        // A crowded cell's statement reads no listing of its range.
        var readListings = true
        if let first = rows.first, first.contains("cell_read") { readListings = try first["cell_read"] as Bool }
        entries.withLock { $0.append(Entry(statement: statement, elapsed: elapsed, readListings: readListings)) }
        return rows
    }

    func execute(_ statement: SQLStatement) async throws -> Int {
        let (count, elapsed) = try await timed { try await base.execute(statement) }
        entries.withLock { $0.append(Entry(statement: statement, elapsed: elapsed)) }
        return count
    }

    /// What the statements run so far took, by kind.
    var profile: StatementProfile {
        entries.withLock { entries in
            entries.reduce(into: StatementProfile()) { profile, entry in profile.add(entry.statement, entry.elapsed) }
        }
    }

    private func timed<Value>(_ run: () async throws -> Value) async throws -> (Value, Duration) {
        let start = ContinuousClock.now
        let value = try await run()
        return (value, ContinuousClock.now - start)
    }

    /// The geohash ranges whose listings the search read: the values bound to each `c.geohash >= ? AND c.geohash < ?`
    /// of its key statements (a crowded cell's statement reads no listing, and is not kept).
    var readRanges: [GeohashRange] {
        let pattern = "c.geohash >= ? AND c.geohash < ?"
        return entries.withLock { entries in
            entries.filter(\.readListings).map(\.statement).flatMap { statement -> [GeohashRange] in
                var ranges: [GeohashRange] = []
                var rest = statement.sql[...]
                var valueIndex = 0
                while let match = rest.range(of: pattern) {
                    valueIndex += rest[..<match.lowerBound].count { $0 == "?" }
                    if case .text(let lower) = statement.values[valueIndex], case .text(let upper) = statement.values[valueIndex + 1] {
                        ranges.append(GeohashRange(lower: lower, upper: upper))
                    }
                    valueIndex += 2
                    rest = rest[match.upperBound...]
                }
                return ranges
            }
        }
    }
}
