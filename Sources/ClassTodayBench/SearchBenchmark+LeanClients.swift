import ClassTodayCore
import ClassTodayServer
import Foundation

extension SearchBenchmark {
    /// The circle rows' latency as the leanest clients see it, one request at a time, thousands of requests each: the
    /// server's page with `wrk` over one keep-alive connection for a fixed time, and PostGIS's with `pgbench` over one
    /// libpq connection (each place's statement prepared, JIT off) for a fixed number of transactions, the same places in
    /// both, in turn first.
    ///
    /// The peer tables time each place once, with the bench's own clients in its own process: async-http-client and
    /// PostgresNIO, whose event loops and task hops the bench's process shares with the server. `/health` there had
    /// p99s of 0.9-2.6 ms where `wrk` saw 0.4-0.7 ms, so the p99 of 200 pages was mostly the clients' and the
    /// machine's; here neither client shares the server's process, and the p99 is one of thousands.
    struct LeanClients {
        /// The server answering HTTP.
        let http: HTTPPeer
        /// PostGIS's database (``Options/peers``).
        let postgisURL: String
        /// Seconds of each `wrk` run.
        var seconds = 5
        /// Transactions of each `pgbench` run. Not a time: `pgbench --time` ends on `SIGALRM`, which a program started
        /// from this process never received (the signal is blocked in the mask it inherits), and it ran on for minutes.
        var transactions = 10_000
        /// Places per radius: `pgbench` takes at most 128 scripts, one per place.
        var places = 100

        /// The report's lines for nearest-first pages of `limit` (PostGIS asked one more, as in the peer tables) at
        /// each of `radii` around `centers`; a line saying why when `wrk` or `pgbench` is not installed.
        func report(radii: [Double], centers: [GeoPoint], limit: Int) throws -> [String] {
            guard let wrk = Wrk(), let pgbench = Program.find("pgbench") else {
                return ["", "lean clients: skipped, `wrk` or `pgbench` is not installed (apt-get install wrk postgresql-client)"]
            }
            let circles = centers.prefix(places)
            let health = try wrk.run(http.baseURL, path: "/health", connections: 1, threads: 1, seconds: seconds)
            var lines = [
                "",
                "lean clients: one connection, one request at a time, \(circles.count) places per radius, in turn first: "
                    + "wrk for \(seconds) s, pgbench for \(transactions) transactions; p50/p99 in ms of all the run's requests",
                "(the server's page: wrk over HTTP/1.1 keep-alive; PostGIS's: pgbench, libpq, the peer tables' statement prepared per place, JIT off; "
                    + "GET /health with wrk alone: p50 \(LatencySample.format(health.p50)), p99 \(LatencySample.format(health.p99)))",
                "",
                "kind                     HTTP p50  HTTP p99  PostGIS p50  PostGIS p99  HTTP/PostGIS p50    p99",
            ]
            for (round, radius) in radii.enumerated() {
                let paths = circles.map { HTTPPeer.searchPath(ClassSearch.Circle(center: $0, radius: radius), limit: limit) }
                let statements = circles.map { PostGISPeer.nearestSQL(center: $0, radius: radius, limit: limit + 1) }
                let askServer = { try wrk.run(http.baseURL, paths: paths, connections: 1, threads: 1, seconds: seconds) }
                let askPostGIS = { try pgbenchRun(pgbench, statements: statements) }
                let (page, postgis): (Wrk.Run, LatencySample)
                if round.isMultiple(of: 2) {
                    page = try askServer()
                    postgis = try askPostGIS()
                } else {
                    postgis = try askPostGIS()
                    page = try askServer()
                }
                lines.append(.reportLine("circle \(Int(radius)) m", [
                    (LatencySample.format(page.p50), 9), (LatencySample.format(page.p99), 10),
                    (LatencySample.format(postgis.median), 13), (LatencySample.format(postgis.p99), 13),
                    (LatencySample.ratio(page.p50 / postgis.median), 18), (LatencySample.ratio(page.p99 / postgis.p99), 7),
                ]))
            }
            lines.append("(goals: HTTP p50 within 2x PostGIS's, and a p99 at most PostGIS's)")
            return lines
        }

        /// One `pgbench` run of `statements`, a script each, picked at random with equal weights: each transaction's
        /// latency, read from its log.
        private func pgbenchRun(_ pgbench: String, statements: [String]) throws -> LatencySample {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-pgbench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var scripts: [String] = []
            for (index, statement) in statements.enumerated() {
                let file = folder.appendingPathComponent("place-\(index).sql")
                try (statement.split(separator: "\n").joined(separator: " ") + ";\n").write(to: file, atomically: true, encoding: .utf8)
                scripts += ["-f", file.path + "@1"]
            }
            let prefix = folder.appendingPathComponent("latency").path
            _ = try Program.output(of: pgbench, [
                "--no-vacuum", "--protocol=prepared", "--client=1", "--jobs=1", "--transactions=\(transactions)", "--log",
                "--log-prefix=\(prefix)",
            ] + scripts + [try libpqURL()], environment: ["PGOPTIONS": "-c jit=off"])
            var sample = LatencySample()
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasPrefix("latency") {
                // Each line: client, transaction, latency in µs, script, then when it ended.
                for line in try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                    let fields = line.split(separator: " ")
                    if fields.count > 2, let microseconds = Int64(fields[2]) { sample.record(.microseconds(microseconds)) }
                }
            }
            guard sample.median.isFinite else { throw Program.Failed(description: "pgbench logged no transaction") }
            return sample
        }

        /// ``postgisURL`` as libpq reads it: without the pool's own settings (`poolSize`).
        private func libpqURL() throws -> String {
            guard var components = URLComponents(string: postgisURL) else {
                throw ConfigurationError.invalid(key: "peers", reason: "is not a URL")
            }
            components.queryItems = components.queryItems?.filter { $0.name == "sslmode" }
            if components.queryItems?.isEmpty == true { components.queryItems = nil }
            return components.string ?? postgisURL
        }
    }
}
