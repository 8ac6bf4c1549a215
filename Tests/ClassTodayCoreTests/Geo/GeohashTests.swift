import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Tests for ``Geohash``.
@Suite("Geohash")
struct GeohashTests {
    /// The textbook geohash algorithm, building the string character by character, as a reference.
    private static func referenceEncode(_ point: GeoPoint, precision: Int) -> String {
        let alphabet = Array(Geohash.alphabet)
        var latitude = (-90.0, 90.0)
        var longitude = (-180.0, 180.0)
        var isLongitudeBit = true
        var value = 0
        var bitCount = 0
        var result = ""
        while result.count < precision {
            if isLongitudeBit {
                let middle = (longitude.0 + longitude.1) / 2
                if point.lon >= middle { value = value * 2 + 1; longitude.0 = middle } else { value *= 2; longitude.1 = middle }
            } else {
                let middle = (latitude.0 + latitude.1) / 2
                if point.lat >= middle { value = value * 2 + 1; latitude.0 = middle } else { value *= 2; latitude.1 = middle }
            }
            isLongitudeBit.toggle()
            bitCount += 1
            if bitCount == 5 {
                result.append(alphabet[value])
                value = 0
                bitCount = 0
            }
        }
        return result
    }

    /// Checks published encoding vectors.
    @Test("known vectors")
    func knownVectors() {
        #expect(Geohash(GeoPoint(lat: 57.64911, lon: 10.40744), precision: 11).string == "u4pruydqqvj")
        #expect(Geohash(GeoPoint(lat: 37.4842, lon: 126.9297), precision: Geohash.storagePrecision).string.hasPrefix("wydm"))
        #expect(Geohash(GeoPoint(lat: 0, lon: 0), precision: 1).string == "s")
        #expect(Geohash(GeoPoint(lat: -90, lon: -180), precision: 4).string == "0000")
        #expect(Geohash(GeoPoint(lat: 90, lon: 180), precision: 4).string == "zzzz")
        #expect(Geohash(GeoPoint(lat: 42.6, lon: -5.6), precision: 5).string == "ezs42")
        #expect(Geohash.storagePrecision == 10)
    }

    /// Checks that encoding matches the reference algorithm and is prefix-consistent.
    @Test("encoding matches the reference algorithm and is prefix-consistent")
    func matchesReference() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<500 {
            let point = GeoPoint(lat: Double.random(in: -90...90, using: &random),
                                 lon: Double.random(in: -180...180, using: &random))
            let full = Geohash(point, precision: 12)
            #expect(full.string == Self.referenceEncode(point, precision: 12))
            #expect(full.contains(point))
            let precision = Int.random(in: 1...11, using: &random)
            #expect(full.string.hasPrefix(Geohash(point, precision: precision).string))
        }
    }

    /// Checks that decoding gives exact bounds; the center encodes back to the same cell.
    @Test("decoding gives exact bounds; the center encodes back to the same cell")
    func decodeRoundTrip() throws {
        let cell = try #require(Geohash(string: "u4pruydqqvj"))
        #expect(cell.contains(GeoPoint(lat: 57.64911, lon: 10.40744)))
        #expect(abs(cell.center.lat - 57.64911) < 1e-5 && abs(cell.center.lon - 10.40744) < 1e-5)

        var random = SeededRandom(seed: 12)
        let alphabet = Array(Geohash.alphabet)
        for _ in 0..<500 {
            let length = Int.random(in: 1...12, using: &random)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<32, using: &random)] })
            let cell = try #require(Geohash(string: text))
            #expect(cell.string == text)
            #expect(cell.precision == length)
            #expect(Geohash(cell.center, precision: length) == cell)
            let bounds = cell.bounds
            #expect(bounds.maxLon - bounds.minLon == 360 / pow(2, Double((5 * length + 1) / 2)))
            #expect(bounds.maxLat - bounds.minLat == 180 / pow(2, Double(5 * length / 2)))
            // The south-west corner belongs to the cell itself.
            #expect(Geohash(GeoPoint(lat: bounds.minLat, lon: bounds.minLon), precision: length) == cell)
            #expect(cell.parent.map { text.hasPrefix($0.string) } ?? (length == 1))
        }
    }

    /// Checks that parsing validates the alphabet and the length.
    @Test("parsing validates the alphabet and the length", arguments: [
        ("", false), ("a", false), ("wydi", false), ("wydl", false), ("wydo", false), ("wyd m", false),
        ("wydm!", false), ("0123456789bcd", false), ("0123456789bc", true), ("z", true),
    ])
    func parsing(text: String, valid: Bool) {
        #expect((Geohash(string: text) != nil) == valid)
    }

    /// Checks that upper case is accepted and rendered in lower case.
    @Test("upper case is accepted and rendered in lower case")
    func upperCase() {
        #expect(Geohash(string: "WYDM")?.string == "wydm")
    }

    /// Checks that neighbours match a published vector.
    @Test("neighbours match a published vector")
    func neighbourVector() throws {
        let cell = try #require(Geohash(string: "dqcjq"))
        #expect(cell.neighbours.map(\.string) == ["dqcjw", "dqcjx", "dqcjr", "dqcjp", "dqcjn", "dqcjj", "dqcjm", "dqcjt"])
        #expect(cell.neighbour(.north).string == "dqcjw")
        #expect(cell.neighbour(.west).string == "dqcjm")
    }

    /// Checks that neighbours share exact edges.
    @Test("neighbours share exact edges")
    func neighboursShareEdges() throws {
        var random = SeededRandom(seed: 13)
        for _ in 0..<300 {
            let point = GeoPoint(lat: Double.random(in: -89...89, using: &random),
                                 lon: Double.random(in: -180..<180, using: &random))
            let cell = Geohash(point, precision: Int.random(in: 2...12, using: &random))
            let box = cell.bounds
            let north = cell.neighbour(.north).bounds
            let east = cell.neighbour(.east).bounds
            if box.maxLat < 90 {
                #expect(north.minLat == box.maxLat && north.minLon == box.minLon)
            }
            #expect(east.minLat == box.minLat)
            #expect(east.minLon == (box.maxLon == 180 ? -180 : box.maxLon))
            #expect(cell.neighbour(.east).neighbour(.west) == cell)
            #expect(cell.neighbour(.southWest).neighbour(.northEast) == cell || box.minLat == -90)
        }
    }

    /// Checks that neighbours wrap across the antimeridian.
    @Test("neighbours wrap across the antimeridian")
    func antimeridian() {
        let east = Geohash(GeoPoint(lat: 10, lon: 179.9999), precision: 6)
        #expect(east.neighbour(.east) == Geohash(GeoPoint(lat: 10, lon: -179.9999), precision: 6))
        #expect(east.neighbour(.east).neighbour(.west) == east)
        #expect(Geohash(GeoPoint(lat: 10, lon: -180), precision: 6).neighbour(.west) == east)
        #expect(Geohash(string: "b")?.neighbour(.west).string == "z")
        #expect(Geohash(string: "z")?.neighbour(.east).string == "b")
        #expect(Geohash(string: "0")?.neighbour(.southWest).string == "p")
    }

    /// Checks that rows are clamped at the poles.
    @Test("rows are clamped at the poles")
    func poles() {
        let top = Geohash(GeoPoint(lat: 90, lon: 12), precision: 7)
        #expect(top.neighbour(.north) == top)
        #expect(top.neighbour(.northEast) == top.neighbour(.east))
        #expect(top.neighbours.count == 5)
        #expect(!top.neighbours.contains(top))
        let bottom = Geohash(GeoPoint(lat: -90, lon: -179), precision: 3)
        #expect(bottom.neighbour(.south) == bottom)
        #expect(bottom.neighbour(.southWest) == bottom.neighbour(.west))
        #expect(bottom.neighbours.count == 5)
        #expect(Geohash(string: "u")?.neighbours.map(\.string) == ["v", "t", "s", "e", "g"])
    }
}

/// Tests for ``GeohashRange``.
@Suite("GeohashRange")
struct GeohashRangeTests {
    /// Checks that a cell is the interval from its prefix to the next prefix.
    @Test("a cell is the interval from its prefix to the next prefix", arguments: [
        ("wydm", "wydn"), ("wydz", "wye"), ("bz", "c"), ("9", "b"), ("vzzz", "w"), ("zzz", "~"), ("0", "1"),
    ])
    func cellRange(prefix: String, upper: String) throws {
        let range = GeohashRange(cell: try #require(Geohash(string: prefix)))
        #expect(range == GeohashRange(lower: prefix, upper: upper))
    }

    /// Checks that containment uses byte order.
    @Test("containment uses byte order")
    func containment() {
        let range = GeohashRange(lower: "wydz", upper: "wye")
        #expect(range.contains("wydz000000"))
        #expect(range.contains("wydzzzzzzz"))
        #expect(!range.contains("wye0000000"))
        #expect(!range.contains("wydy000000"))
        #expect(GeohashRange(lower: "zz", upper: "~").contains("zzzzzzzzzz"))
    }

    /// Checks that adjacent cells merge into one range.
    @Test("adjacent cells merge into one range")
    func merging() throws {
        func cover(_ prefixes: [String]) throws -> [GeohashRange] {
            let cells = try prefixes.map { try #require(Geohash(string: $0)).bits }
            return try #require(GeohashCover.cover(cells: cells, grid: Geohash.Grid(precision: prefixes[0].count))).ranges
        }
        #expect(try cover(["wydn", "wydm"]) == [GeohashRange(lower: "wydm", upper: "wydp")])
        #expect(try cover(["wydz", "wye0"]) == [GeohashRange(lower: "wydz", upper: "wye1")])
        #expect(try cover(["wyd0", "wyd1", "wyd3"]) == [
            GeohashRange(lower: "wyd0", upper: "wyd2"), GeohashRange(lower: "wyd3", upper: "wyd4"),
        ])
        #expect(try cover(["zzzy", "zzzz"]) == [GeohashRange(lower: "zzzy", upper: "~")])
    }

    /// Checks that ranges order by lower bound.
    @Test("ranges order by lower bound")
    func ordering() {
        let ranges = [GeohashRange(lower: "wydn", upper: "wydp"), GeohashRange(lower: "wydm", upper: "wydn")]
        #expect(ranges.sorted().map(\.lower) == ["wydm", "wydn"])
    }
}
