import ClassTodayCore
import ClassTodayServer
import Foundation

extension SyntheticData {
    /// xoshiro256** (Blackman and Vigna), seeded through SplitMix64: fast, small and the same on every
    /// platform for a given seed.
    struct Generator: RandomNumberGenerator, Sendable {
        private var s0: UInt64
        private var s1: UInt64
        private var s2: UInt64
        private var s3: UInt64

        /// A generator whose sequence depends only on `seed`.
        init(seed: UInt64) {
            var state = seed
            s0 = Self.splitMix(&state)
            s1 = Self.splitMix(&state)
            s2 = Self.splitMix(&state)
            s3 = Self.splitMix(&state)
        }

        /// The next 64 random bits.
        mutating func next() -> UInt64 {
            let result = Self.rotate(s1 &* 5, 7) &* 9
            let shifted = s1 << 17
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= shifted
            s3 = Self.rotate(s3, 45)
            return result
        }

        /// A uniform value in `0 ..< 1` with 53 random bits.
        mutating func unit() -> Double {
            Double(next() >> 11) * 0x1.0p-53
        }

        /// A uniform index in `0 ..< count`; `count` must be positive.
        mutating func index(_ count: Int) -> Int {
            Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(count)).high)
        }

        /// A uniform integer in `range`.
        mutating func integer(in range: ClosedRange<Int>) -> Int {
            range.lowerBound + index(range.upperBound - range.lowerBound + 1)
        }

        /// True with probability `probability`.
        mutating func chance(_ probability: Double) -> Bool {
            unit() < probability
        }

        /// A uniformly chosen element of `elements`, which must not be empty.
        mutating func element<Element>(of elements: [Element]) -> Element {
            elements[index(elements.count)]
        }

        /// Two independent standard normal values (Box–Muller).
        mutating func gaussianPair() -> (Double, Double) {
            let radius = (-2 * log(1 - unit())).squareRoot()
            let angle = 2 * Double.pi * unit()
            return (radius * cos(angle), radius * sin(angle))
        }

        /// One SplitMix64 step: advances `state` and returns a well-mixed value.
        static func splitMix(_ state: inout UInt64) -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
            (value << count) | (value >> (64 - count))
        }
    }

    /// Picks indexes in proportion to fixed non-negative weights.
    struct WeightedTable: Sendable {
        /// Running totals of the weights, normalized so that the last one is 1.
        private let cumulative: [Double]

        /// A table for `weights` (at least one positive).
        init(weights: [Double]) {
            let total = weights.reduce(0, +)
            var running = 0.0
            cumulative = weights.map { weight in
                running += weight
                return running / total
            }
        }

        /// The number of weights.
        var count: Int { cumulative.count }

        /// A weighted random index.
        func pick(using generator: inout Generator) -> Int {
            let value = generator.unit()
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] > value {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            return low
        }
    }
}
