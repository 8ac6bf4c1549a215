import ClassTodayCore
import Foundation

extension SearchBenchmark {
    /// Requests per second under load: the 2 km nearest-first page against `GET /health`, on the same server over the
    /// same number of keep-alive connections, driven by `wrk` (Debian's `wrk`), in rounds alternating which goes first.
    struct Throughput {
        /// The server answering HTTP.
        let http: HTTPPeer
        /// Open connections, held for each run.
        var connections = 32
        /// `wrk`'s threads.
        var threads = 2
        /// Seconds of each run.
        var seconds = 5
        /// Runs of each path.
        var rounds = 3

        /// The report's lines for the pages at `paths` (asked in turn) against `/health`; a line saying why when `wrk`
        /// is not installed.
        func report(pagePaths paths: [String], label: String) throws -> [String] {
            guard let wrk = Wrk() else {
                return ["", "throughput: skipped, `wrk` is not installed (apt-get install wrk)"]
            }
            let run = { (path: String, paths: [String]?) in
                try wrk.run(http.baseURL, path: path, paths: paths, connections: connections, threads: threads, seconds: seconds)
            }
            var health: [Wrk.Run] = []
            var pages: [Wrk.Run] = []
            for round in 0..<rounds {
                let healthFirst = round.isMultiple(of: 2)
                if healthFirst { health.append(try run("/health", nil)) }
                pages.append(try run("/", paths))
                if !healthFirst { health.append(try run("/health", nil)) }
            }
            let median = { (runs: [Wrk.Run], value: (Wrk.Run) -> Double) in runs.map(value).sorted()[runs.count / 2] }
            let (healthRate, pageRate) = (median(health, \.requestsPerSecond), median(pages, \.requestsPerSecond))
            let line = { (name: String, runs: [Wrk.Run]) -> String in
                .reportLine(name, [
                    (String(format: "%.0f", median(runs, \.requestsPerSecond)), 14),
                    (runs.map { String(format: "%.0f", $0.requestsPerSecond) }.joined(separator: " "), 22),
                    (LatencySample.format(median(runs, \.p50)), 10), (LatencySample.format(median(runs, \.p99)), 10),
                ])
            }
            return [
                "",
                "throughput: wrk, \(connections) connections over \(threads) threads, \(rounds) runs of \(seconds) s per path, in turn first; "
                    + "medians of the runs (latency in ms, wrk's own percentiles)",
                "path                     requests/s  each run's requests/s  p50 ms    p99 ms",
                line(label, pages),
                line("GET /health", health),
                "\(label) / health: " + String(format: "%.1f %% (goal: at least 25 %%)", 100 * pageRate / healthRate),
            ]
        }
    }
}
