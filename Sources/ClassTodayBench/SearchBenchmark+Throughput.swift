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

        /// What one `wrk` run measured.
        struct Run {
            let requestsPerSecond: Double
            /// Latency percentiles, in ms.
            let p50: Double
            let p99: Double
        }

        /// `wrk` could not run or its output was not understood.
        struct Failed: Error, CustomStringConvertible {
            let description: String
        }

        /// The report's lines for the pages at `paths` (asked in turn) against `/health`; a line saying why when `wrk`
        /// is not installed.
        func report(pagePaths paths: [String], label: String) throws -> [String] {
            guard let wrk = Self.executable("wrk") else {
                return ["", "throughput: skipped, `wrk` is not installed (apt-get install wrk)"]
            }
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("bench-search-\(UUID().uuidString).lua")
            try Self.script(paths).write(to: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: script) }
            var health: [Run] = []
            var pages: [Run] = []
            for round in 0..<rounds {
                let healthFirst = round.isMultiple(of: 2)
                if healthFirst { health.append(try run(wrk, path: "/health", script: nil)) }
                pages.append(try run(wrk, path: "/", script: script.path))
                if !healthFirst { health.append(try run(wrk, path: "/health", script: nil)) }
            }
            let median = { (runs: [Run], value: (Run) -> Double) in runs.map(value).sorted()[runs.count / 2] }
            let (healthRate, pageRate) = (median(health, \.requestsPerSecond), median(pages, \.requestsPerSecond))
            let line = { (name: String, runs: [Run]) -> String in
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

        /// One `wrk` run of `path`, or of the script's paths.
        private func run(_ wrk: String, path: String, script: String?) throws -> Run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: wrk)
            process.arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency"]
                + (script.map { ["-s", $0] } ?? []) + [http.baseURL + path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            guard process.terminationStatus == 0, !text.contains("Non-2xx"), !text.contains("Socket errors"),
                  let rate = Self.value(after: "Requests/sec:", in: text),
                  let p50 = Self.milliseconds(after: "50%", in: text), let p99 = Self.milliseconds(after: "99%", in: text)
            else { throw Failed(description: "wrk \(path) failed or answered errors: \(text)") }
            return Run(requestsPerSecond: rate, p50: p50, p99: p99)
        }

        /// A `wrk` script asking `paths` in turn, one per request.
        static func script(_ paths: [String]) -> String {
            let list = paths.map { "  \"\($0)\"," }.joined(separator: "\n")
            return """
                local paths = {
                \(list)
                }
                local next = 0
                request = function()
                  next = next % #paths + 1
                  return wrk.format("GET", paths[next])
                end

                """
        }

        /// The number that follows `label` on its line.
        private static func value(after label: String, in text: String) -> Double? {
            field(after: label, in: text).flatMap { Double($0) }
        }

        /// A latency that follows `label` (`812.00us`, `1.20ms`, `2.01s`), in milliseconds.
        private static func milliseconds(after label: String, in text: String) -> Double? {
            guard let value = field(after: label, in: text) else { return nil }
            for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1_000.0)] where value.hasSuffix(unit) {
                return Double(value.dropLast(unit.count)).map { $0 * scale }
            }
            return nil
        }

        /// The field after `label` on the first line of `text` that starts with it.
        private static func field(after label: String, in text: String) -> Substring? {
            text.split(separator: "\n").lazy.compactMap { line -> Substring? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count > 1 && fields[0] == label ? fields[1] : nil
            }.first
        }

        /// The path of `name` on `PATH`, if it is there.
        private static func executable(_ name: String) -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
    }
}
