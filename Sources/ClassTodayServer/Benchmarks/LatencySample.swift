import Foundation

/// Latencies of repeated runs of one query kind, summarised as the benchmarks report them.
struct LatencySample {
    private(set) var milliseconds: [Double] = []

    /// Adds one run.
    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        milliseconds.append(Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// The value below which `fraction` of the runs fall (nearest rank).
    func percentile(_ fraction: Double) -> Double {
        guard !milliseconds.isEmpty else { return .nan }
        let sorted = milliseconds.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// The median.
    var median: Double { percentile(0.5) }
    /// The 99th percentile.
    var p99: Double { percentile(0.99) }

    /// A latency in milliseconds as the reports print it: two decimals, or `-` when there were no runs.
    static func format(_ milliseconds: Double) -> String {
        milliseconds.isNaN ? "-" : String(format: "%.2f", milliseconds)
    }
}
