import ClassTodayCore
import ClassTodayServer
import ClassTodaySeed
import Foundation

/// Latencies of repeated runs of one kind (a query kind, a chat delivery), summarised as the benchmarks report them.
public struct LatencySample: Sendable {
    private(set) var milliseconds: [Double] = []

    /// An empty sample.
    public init() {}

    /// Adds one run.
    public mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        milliseconds.append(Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// The value below which `fraction` of the runs fall (nearest rank).
    public func percentile(_ fraction: Double) -> Double {
        guard !milliseconds.isEmpty else { return .nan }
        let sorted = milliseconds.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// The runs whose place in recording order (from 0) `isIncluded` accepts.
    func runs(at isIncluded: (Int) -> Bool) -> LatencySample {
        var sample = LatencySample()
        sample.milliseconds = milliseconds.indices.filter(isIncluded).map { milliseconds[$0] }
        return sample
    }

    /// The arithmetic mean (NaN without runs).
    var mean: Double { milliseconds.isEmpty ? .nan : milliseconds.reduce(0, +) / Double(milliseconds.count) }
    /// The median.
    var median: Double { percentile(0.5) }
    /// The 99th percentile.
    var p99: Double { percentile(0.99) }

    /// The median of this sample's runs each divided by `other`'s run of the same rank in recording order: for two
    /// samples recorded side by side, one run each per query, the ratio query by query, which the machine's drift over
    /// the queries moves less than the ratio of the two medians does.
    func medianRatio(to other: LatencySample) -> Double {
        var ratios = LatencySample()
        ratios.milliseconds = zip(milliseconds, other.milliseconds).map { $0 / $1 }
        return ratios.median
    }

    /// A latency in milliseconds as the reports print it: `decimals` decimals (two unless told), or `-` when there
    /// were no runs.
    public static func format(_ milliseconds: Double, decimals: Int = 2) -> String {
        milliseconds.isNaN ? "-" : String(format: "%.\(decimals)f", milliseconds)
    }

    /// A ratio of latencies as the reports print it: `decimals` decimals (two unless told) and an `x` (`1.52x`).
    static func ratio(_ value: Double, decimals: Int = 2) -> String {
        String(format: "%.\(decimals)fx", value)
    }
}
