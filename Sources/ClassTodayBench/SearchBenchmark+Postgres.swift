import ClassTodayCore
import ClassTodayServer
import ClassTodaySeed
import Foundation
import Logging
import PostgresNIO

extension SearchBenchmark {
    /// Loads the tables and indexes of `store`'s database (the dataset's, or PostGIS's points, which `engine` names)
    /// into PostgreSQL's shared buffers with `pg_prewarm` before any search is timed, as SQLite's file is read into the
    /// OS page cache (``readFileIntoPageCache()``), and says how much it loaded and how long it took; says so when the
    /// database does not have the extension (`CREATE EXTENSION pg_prewarm`, which the bench leaves to its owner). A
    /// server restarted, or one whose files the machine had dropped from its cache, read a run's first pages from the
    /// disk: `공업수학` took 182 ms in such a run, and PostGIS's 500 m circles 21 ms at p50 in another.
    static func prewarm(_ store: PostgresStore, as engine: String) async throws -> String {
        let database = store.database
        guard try await database.row("SELECT 1 AS installed FROM pg_extension WHERE extname = 'pg_prewarm'") != nil else {
            return "\(engine)'s tables not loaded into its buffers first: the database does not have the pg_prewarm extension"
        }
        let start = ContinuousClock.now
        let loaded = try await database.row("""
            SELECT COALESCE(SUM(pg_prewarm(c.oid)), 0)::bigint * current_setting('block_size')::bigint AS bytes
            FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'i')
            """)
        let bytes: Int64 = try loaded?["bytes"] ?? 0
        return "\(engine)'s tables and indexes (\(String(format: "%.1f GB", Double(bytes) / 1e9))) loaded into its buffers first (pg_prewarm): "
            + "\(ContinuousClock.now - start)"
    }

    /// Lays PostgreSQL's listings out by location as an operator does after an import (`classtoday cluster`), when
    /// their rows do not follow their geohashes yet (a correlation below 0.9 in the planner's statistics: rows seeded in
    /// no order of place), and says how closely they follow them and what that took. A radius page reads its listings'
    /// rows, scattered over the table when written in the order they came.
    static func layOutByLocation(_ store: PostgresStore) async throws -> String {
        let before = try await store.classesLocationOrder() ?? 0
        guard before < 0.9 else {
            return "PostgreSQL's listings in location order already (classtoday cluster): correlation \(String(format: "%.2f", before))"
        }
        let start = ContinuousClock.now
        try await store.clusterClasses(lockTimeout: .seconds(60))
        let after = try await store.classesLocationOrder() ?? 0
        return "PostgreSQL's listings rewritten in location order (classtoday cluster) in \(ContinuousClock.now - start): "
            + "correlation \(String(format: "%.2f", before)) before, \(String(format: "%.2f", after)) after"
    }

    /// The benchmark's queries answered by PostgreSQL on the same dataset, each right after SQLite answered it:
    /// the server's search (through the repository, as the server runs it) and a full scan. For the ratio of the two
    /// backends, each query is then asked again of both the same way, through the repository, in turn first: the
    /// row's own SQLite figures time the search inside a read already lent and recorded, where PostgreSQL's time the
    /// whole call, and the second reads find both backends' pages for the query as warm.
    struct PostgresSample {
        let store: PostgresStore
        /// The SQLite database the row's queries were asked of.
        let sqlite: any SQLDatabase
        let limit: Int
        let logger: Logger
        /// The server answering HTTP over each backend, which circle rows ask each query again: nil in other rows, and
        /// without ``Options/peers``.
        var http: (sqlite: HTTPPeer, postgres: HTTPPeer)? = nil
        /// The server's search, its first read of each query.
        private(set) var search = LatencySample()
        /// The second reads through the repository, SQLite's and PostgreSQL's.
        private(set) var again = (sqlite: LatencySample(), postgres: LatencySample())
        /// Each backend answering the row's queries one after another (``recordAlone(_:)``), SQLite's and PostgreSQL's.
        private(set) var alone = (sqlite: LatencySample(), postgres: LatencySample())
        /// The same first page with every index scan turned off.
        private(set) var fullScan = LatencySample()
        /// Queries whose page differs from SQLite's: in size, or (nearest first) in distances.
        private(set) var disagreements = 0
        /// The nearest-first page asked again of each backend's server over HTTP (``http``), after the reads above.
        private(set) var overHTTP = (sqlite: LatencySample(), postgres: LatencySample())
        /// Queries whose HTTP pages differ between the backends' servers: in size, or in distances.
        private(set) var httpDisagreements = 0

        /// Answers `query` on PostgreSQL, compares the page with SQLite's, asks it again of both backends, SQLite first
        /// for every other query, and runs the full scan when asked.
        mutating func record(_ query: ClassSearch, sqlitePage: Page<ClassView>, fullScan runsFullScan: Bool) async throws {
            let (page, elapsed) = try await timedSearch(query, on: store.database)
            search.record(elapsed)
            let sqliteFirst = again.sqlite.milliseconds.count.isMultiple(of: 2)
            if sqliteFirst { again.sqlite.record(try await timedSearch(query, on: sqlite).elapsed) }
            again.postgres.record(try await timedSearch(query, on: store.database).elapsed)
            if !sqliteFirst { again.sqlite.record(try await timedSearch(query, on: sqlite).elapsed) }
            if !Self.agree(page, sqlitePage, sort: query.sort) {
                disagreements += 1
                logger.error("PostgreSQL and SQLite pages differ", metadata: ["query": "\(query)"])
            }
            if let http, query.sort == .distance, let circle = query.circle {
                let path = HTTPPeer.searchPath(circle, limit: limit)
                let earlier = try await (sqliteFirst ? http.sqlite : http.postgres).get(path)
                let later = try await (sqliteFirst ? http.postgres : http.sqlite).get(path)
                let (sqliteAnswer, postgresAnswer) = sqliteFirst ? (earlier, later) : (later, earlier)
                overHTTP.sqlite.record(sqliteAnswer.1)
                overHTTP.postgres.record(postgresAnswer.1)
                if try Self.distances(in: postgresAnswer.0) != Self.distances(in: sqliteAnswer.0) {
                    httpDisagreements += 1
                    logger.error("the PostgreSQL and SQLite servers' HTTP pages differ", metadata: ["circle": "\(circle)"])
                }
            }
            if runsFullScan {
                fullScan.record(try await fullScanSearch(query))
            }
        }

        /// PostgreSQL's second reads by what came right before each, as ``record(_:sqlitePage:fullScan:)`` alternates
        /// them: SQLite's second read of the query (the even queries), or PostgreSQL's own first read of it (the odd).
        var againAfter: (sqlite: LatencySample, own: LatencySample) {
            (again.postgres.runs { $0.isMultiple(of: 2) }, again.postgres.runs { !$0.isMultiple(of: 2) })
        }

        /// Asks each backend the row's `queries` one after another, a block of them per backend, twice: PostgreSQL's
        /// block first in the first round, SQLite's in the second. Within a block each read follows the same backend's
        /// read of the previous query, as in a server, which has one backend. In the reads in turn
        /// (``record(_:sqlitePage:fullScan:)``) each read follows the other backend's work in this process, and
        /// PostgreSQL's page, which wakes the connection's event loop and the server's process, pays more for that: in
        /// loops over 50 places on a million classes, its page took 0.52-0.55 ms (medians) right after SQLite's page,
        /// 0.38-0.48 ms right after its own page or a `SELECT 1` on its connection, where SQLite's took 0.30-0.37 ms.
        mutating func recordAlone(_ queries: [ClassSearch]) async throws {
            for postgresFirst in [true, false] {
                for onPostgres in [postgresFirst, !postgresFirst] {
                    for query in queries {
                        let elapsed = try await timedSearch(query, on: onPostgres ? store.database : sqlite).elapsed
                        if onPostgres { alone.postgres.record(elapsed) } else { alone.sqlite.record(elapsed) }
                    }
                }
            }
        }

        /// The distances of an HTTP page's classes, in order (ids differ between the two seeded copies).
        private static func distances(in body: ByteBuffer) throws -> [Double] {
            try HTTPPeer.items(in: body).map { $0["distance"] as? Double ?? .nan }
        }

        /// The first page of `query` as the server searches `database`, and how long the search took.
        private func timedSearch(_ query: ClassSearch, on database: any SQLDatabase) async throws -> (page: Page<ClassView>, elapsed: Duration) {
            let start = ContinuousClock.now
            let page = try await SQLClassRepository(database: database).search(query, viewerId: nil, page: PageRequest(limit: limit))
            return (page, ContinuousClock.now - start)
        }

        /// Whether two backends' pages agree. Ids and creation times differ between the two seeded copies (they
        /// carry the seeding time), but not the order of creation: nearest-first pages must have the same distances,
        /// other pages the same listings (name and description) in the same order.
        private static func agree(_ page: Page<ClassView>, _ other: Page<ClassView>, sort: ClassSearch.Sort) -> Bool {
            guard page.items.count == other.items.count else { return false }
            return zip(page.items, other.items).allSatisfy { mine, theirs in
                sort == .distance ? abs((mine.distance ?? 0) - (theirs.distance ?? 0)) < 1e-6
                    : (mine.listing.name, mine.listing.description) == (theirs.listing.name, theirs.listing.description)
            }
        }

        /// The same first page read by scanning every listing: the search's conditions in one statement, with
        /// index and bitmap scans turned off for its transaction, then the page's listings read as the server reads
        /// them. They are read after that transaction: their statement is prepared on the connection, and a plan
        /// PostgreSQL kept from a run without index scans would be used by the searches timed later (a keyword + 5 km
        /// circle's walk, which keeps generic plans, then took 0.9 s a page).
        private func fullScanSearch(_ query: ClassSearch) async throws -> Duration {
            let (ids, scan): ([String], Duration) = try await store.database.transaction { [limit] db in
                for setting in ["enable_indexscan", "enable_indexonlyscan", "enable_bitmapscan"] {
                    try await db.execute("SET LOCAL \(raw: setting) = off")
                }
                let start = ContinuousClock.now
                var statement: SQLStatement = "SELECT c.id FROM classes c WHERE c.deleted_at IS NULL AND c.status = 'open'"
                if let keyword = query.keyword { statement.append(" AND c.search @@ \(keyword.tsQuery)::tsquery") }
                if let circle = query.circle {
                    let distance = db.dialect.distance(lat1: "c.lat", lon1: "c.lon", lat2: "\(circle.center.lat)", lon2: "\(circle.center.lon)")
                    statement.append(" AND \(distance) <= \(circle.radius) ORDER BY \(distance), c.id COLLATE \"C\" LIMIT \(limit)")
                } else {
                    statement.append(" ORDER BY c.created_at DESC, c.id COLLATE \"C\" LIMIT \(limit)")
                }
                let ids: [String] = try await db.rows(statement).map { try $0["id"] }
                return (ids, ContinuousClock.now - start)
            }
            let start = ContinuousClock.now
            _ = try await store.database.read { db in try await ClassViewQuery.views(ids: ids, viewerId: nil, db) }
            return scan + (ContinuousClock.now - start)
        }

        /// The report's PostgreSQL table: per kind, SQLite's and PostgreSQL's latencies side by side.
        static func report(_ rows: [(kind: String, sqlite: LatencySample, postgres: PostgresSample)], fullScanQueries: Int) -> [String] {
            var lines = [
                "",
                "PostgreSQL: the same dataset and queries, each answered right after SQLite in this run",
                "(the server's search through the repository: a circle page in one statement, other searches in one read-only transaction; "
                    + "full scan: \(fullScanQueries) runs per kind, index scans off; again: each query asked a second time of both "
                    + "backends through the repository, in turn first, the whole call timed on each; PG/SQLite: of those, the ratio of "
                    + "their medians, and paired: the median of the ratios query by query)",
                "",
                "kind                      SQLite p50  SQLite p99     PG p50     PG p99  PG full-scan p50  PG scan/PG  again: SQLite p50  PG p50  "
                    + "PG/SQLite  paired  pages differing",
            ]
            let format = { LatencySample.format($0) }
            for row in rows {
                let (sqlite, postgres, again) = (row.sqlite, row.postgres.search, row.postgres.again)
                lines.append(.reportLine(row.kind, [
                    (format(sqlite.median), 12), (format(sqlite.p99), 12), (format(postgres.median), 11), (format(postgres.p99), 11),
                    (format(row.postgres.fullScan.median), 18),
                    (LatencySample.ratio(row.postgres.fullScan.median / postgres.median, decimals: 0), 12),
                    (format(again.sqlite.median), 19), (format(again.postgres.median), 8),
                    (LatencySample.ratio(again.postgres.median / again.sqlite.median), 11),
                    (LatencySample.ratio(again.postgres.medianRatio(to: again.sqlite)), 8), ("\(row.postgres.disagreements)", 17),
                ]))
            }
            lines += pairTable(rows, caption: [
                "alone: each backend asked the row's queries one after another, a block per backend, twice (PostgreSQL's block first in one round,",
                "SQLite's in the other), as a server with one backend answers one search after the next; beside, PostgreSQL's second reads above",
                "by what came right before them: SQLite's second read (every other query), or its own first read (the others)",
            ], header: "kind                      alone: SQLite p50  SQLite p99  PG p50  PG p99  PG/SQLite  paired  again PG p50: after SQLite  after its own",
                widths: [19, 12, 8, 8, 11, 8], samples: \.alone) { postgres in
                let after = postgres.againAfter
                return [(format(after.sqlite.median), 28), (format(after.own.median), 14)]
            }
            lines += pairTable(rows, caption: [
                "over HTTP: each circle asked once more of the server over each backend (two servers built as `serve` builds them, in this process,",
                "on loopback, async-http-client as the client), in turn first, after the reads above",
            ], header: "kind                      SQLite HTTP p50  SQLite HTTP p99  PG HTTP p50  PG HTTP p99  PG/SQLite p50  paired  pages differing",
                widths: [17, 17, 13, 13, 15, 8], samples: \.overHTTP) { postgres in
                [("\(postgres.httpDisagreements)", 17)]
            }
            return lines
        }

        /// A table of both backends' `samples` for the rows that have them, under `caption` and `header`; none when no
        /// row has any. Each line holds SQLite's p50 and p99, PostgreSQL's, the ratio of their medians and the median
        /// of their ratios query by query, in columns `widths` wide, then the row's `extra` columns.
        private static func pairTable(
            _ rows: [(kind: String, sqlite: LatencySample, postgres: PostgresSample)], caption: [String], header: String, widths: [Int],
            samples: (PostgresSample) -> (sqlite: LatencySample, postgres: LatencySample),
            then extra: (PostgresSample) -> [(text: String, width: Int)]
        ) -> [String] {
            let measured = rows.filter { !samples($0.postgres).postgres.milliseconds.isEmpty }
            guard !measured.isEmpty else { return [] }
            return [""] + caption + ["", header] + measured.map { row in
                let (sqlite, postgres) = samples(row.postgres)
                let cells = [sqlite.median, sqlite.p99, postgres.median, postgres.p99].map { LatencySample.format($0) } + [
                    LatencySample.ratio(postgres.median / sqlite.median), LatencySample.ratio(postgres.medianRatio(to: sqlite)),
                ]
                return .reportLine(row.kind, zip(cells, widths).map { (text: $0, width: $1) } + extra(row.postgres))
            }
        }
    }
}
