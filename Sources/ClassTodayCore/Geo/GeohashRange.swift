/// A half-open interval `lower <= geohash < upper` over stored geohash strings, ready for an indexed
/// query such as `geohash >= ? AND geohash < ?`.
///
/// Bounds are meant to be compared with strings of ``Geohash/storagePrecision`` characters using plain
/// byte (ASCII) order — SQLite's default BINARY collation, or `COLLATE "C"` elsewhere. The base32
/// alphabet is in ascending ASCII order, so a cell with prefix `"wydm"` is `["wydm", "wydn")`, a cell
/// ending in `z` carries (`"wydz"` is `["wydz", "wye")`) and the end of the key space is
/// ``endOfKeySpace`` (`"~"`, greater than every geohash).
public struct GeohashRange: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Inclusive lower bound.
    public let lower: String
    /// Exclusive upper bound.
    public let upper: String

    /// An upper bound greater than every geohash string.
    public static let endOfKeySpace = "~"

    /// A range with the given bounds.
    public init(lower: String, upper: String) {
        self.lower = lower
        self.upper = upper
    }

    /// The range of every geohash that starts with `cell`'s text.
    public init(cell: Geohash) {
        let length = cell.precision
        let next = cell.bits + 1
        if next >> UInt64(5 * length) != 0 {
            self.init(lower: cell.string, upper: GeohashRange.endOfKeySpace)
        } else {
            self.init(lower: cell.string, upper: GeohashRange.carried(next, length: length))
        }
    }

    /// Whether `geohash` lies in the range (byte-wise comparison).
    public func contains(_ geohash: String) -> Bool {
        GeohashRange.precedesOrEquals(lower, geohash) && !GeohashRange.precedesOrEquals(upper, geohash)
    }

    /// `"[lower, upper)"`.
    public var description: String {
        "[\(lower), \(upper))"
    }

    /// Orders by lower bound, then upper bound, comparing bytes.
    public static func < (lhs: GeohashRange, rhs: GeohashRange) -> Bool {
        if lhs.lower != rhs.lower {
            return lhs.lower.utf8.lexicographicallyPrecedes(rhs.lower.utf8)
        }
        return lhs.upper.utf8.lexicographicallyPrecedes(rhs.upper.utf8)
    }

    /// Whether `a <= b` in byte order.
    static func precedesOrEquals(_ a: String, _ b: String) -> Bool {
        !b.utf8.lexicographicallyPrecedes(a.utf8)
    }

    /// `bits` rendered with `length` characters, then trailing `"0"`s removed (keeping at least
    /// `minimumLength` characters). For a successor this is the carried form (`"wye0"` becomes `"wye"`).
    static func carried(_ bits: UInt64, length: Int, minimumLength: Int = 1) -> String {
        var text = Array(Geohash.render(bits, length: length).utf8)
        while text.count > max(1, minimumLength), text.last == UInt8(ascii: "0") {
            text.removeLast()
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension GeohashCover {
    /// A half-open interval `[lower, upper)` of cell numbers at ``Geohash/storagePrecision``
    /// (`upper` may equal ``Span/end``); the integer form of a ``GeohashRange``.
    struct Span: Sendable, Hashable {
        /// First cell number in the span.
        var lower: UInt64
        /// One past the last cell number in the span.
        var upper: UInt64

        /// Number of storage-precision cells in the world; the end of the key space.
        static let end: UInt64 = 1 << UInt64(5 * Geohash.storagePrecision)

        /// The string range; the lower bound keeps at least `precision` characters.
        func range(precision: Int) -> GeohashRange {
            let length = Geohash.storagePrecision
            let lowerText = GeohashRange.carried(lower, length: length, minimumLength: precision)
            let upperText = upper >= Span.end
                ? GeohashRange.endOfKeySpace
                : GeohashRange.carried(upper, length: length)
            return GeohashRange(lower: lowerText, upper: upperText)
        }

        /// Normalized `spans` reduced to at most `limit` spans by filling the smallest gaps between
        /// neighbours — the superset with that many spans that adds the fewest cells.
        static func mergingSmallestGaps(_ spans: [Span], limit: Int) -> [Span] {
            let excess = spans.count - max(1, limit)
            guard excess > 0 else { return spans }
            let gapOrder = (0..<(spans.count - 1)).sorted { first, second in
                let firstGap = spans[first + 1].lower - spans[first].upper
                let secondGap = spans[second + 1].lower - spans[second].upper
                return firstGap != secondGap ? firstGap < secondGap : first < second
            }
            var filled = [Bool](repeating: false, count: spans.count - 1)
            for gap in gapOrder.prefix(excess) {
                filled[gap] = true
            }
            var result: [Span] = []
            var current = spans[0]
            for index in 1..<spans.count {
                if filled[index - 1] {
                    current.upper = spans[index].upper
                } else {
                    result.append(current)
                    current = spans[index]
                }
            }
            result.append(current)
            return result
        }
    }
}
