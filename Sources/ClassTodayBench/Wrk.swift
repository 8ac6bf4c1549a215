import Foundation

/// Debian's `wrk`, driving a server for a fixed time over a fixed number of keep-alive connections: its requests per
/// second and its own latency percentiles.
struct Wrk {
    /// The program's path.
    let executable: String

    /// `wrk` found on `PATH`; nil when it is not installed.
    init?() {
        guard let path = Program.find("wrk") else { return nil }
        executable = path
    }

    /// What one run measured.
    struct Run {
        let requestsPerSecond: Double
        /// Latency percentiles, in ms.
        let p50: Double
        let p99: Double
    }

    /// Runs `seconds` against `baseURL`: `path` on every request, or `paths` in turn when given.
    func run(_ baseURL: String, path: String = "/", paths: [String]? = nil, connections: Int, threads: Int, seconds: Int) throws -> Run {
        var script: URL?
        if let paths {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-wrk-\(UUID().uuidString).lua")
            try Self.script(paths).write(to: file, atomically: true, encoding: .utf8)
            script = file
        }
        defer { script.map { try? FileManager.default.removeItem(at: $0) } }
        let text = try Program.output(of: executable, [
            "-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency",
        ] + (script.map { ["-s", $0.path] } ?? []) + [baseURL + path])
        guard !text.contains("Non-2xx"), !text.contains("Socket errors"), let rate = Self.value(after: "Requests/sec:", in: text),
              let p50 = Self.milliseconds(after: "50%", in: text), let p99 = Self.milliseconds(after: "99%", in: text)
        else {
            throw Program.Failed(description: "wrk \(path) answered errors, or its output was not understood: \(text)")
        }
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
}
