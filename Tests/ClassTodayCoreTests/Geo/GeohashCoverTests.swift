import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Tests for ``GeohashCover``.
@Suite("GeohashCover")
struct GeohashCoverTests {
    /// Checks that circle covers hold every point within the radius (brute force).
    @Test("circle covers hold every point within the radius (brute force)")
    func circleProperty() {
        var random = SeededRandom(seed: 2024)
        var pointsInside = 0
        for _ in 0..<1_500 {
            let center = GeoTestSampling.randomCenter(using: &random)
            let radius = GeoTestSampling.randomRadius(using: &random)
            let ranges = GeohashCover.circle(center: center, radiusMeters: radius)
            #expect(!ranges.isEmpty && ranges.count <= GeohashCover.maximumRangeCount)
            #expect(GeoTestSampling.areSortedAndDisjoint(ranges))
            var points = (0..<24).map { _ in
                GeoTestSampling.randomPoint(near: center, radiusMeters: radius, using: &random)
            }
            points.append(center)
            // Points on the antimeridian (stored as 180 or -180) and on the poles.
            let edge = GeoTestSampling.randomPoint(near: center, radiusMeters: radius, using: &random)
            points += [GeoPoint(lat: edge.lat, lon: 180), GeoPoint(lat: edge.lat, lon: -180),
                       GeoPoint(lat: 90, lon: edge.lon), GeoPoint(lat: -90, lon: edge.lon)]
            for point in points where Haversine.distance(center, point) <= radius {
                pointsInside += 1
                let hash = GeoTestSampling.storageHash(point)
                #expect(GeoTestSampling.anyContains(ranges, hash),
                        "center \(center.lat),\(center.lon) r \(radius): missed \(point.lat),\(point.lon) \(hash)")
            }
        }
        #expect(pointsInside > 20_000)
    }

    /// Checks that box covers hold every point of the box, including antimeridian-crossing boxes.
    @Test("box covers hold every point of the box, including antimeridian-crossing boxes")
    func boxProperty() {
        var random = SeededRandom(seed: 77)
        var pointsInside = 0
        for index in 0..<1_000 {
            let height = exp(Double.random(in: log(1e-5)...log(40.0), using: &random))
            let width = exp(Double.random(in: log(1e-5)...log(60.0), using: &random))
            let minLat = index % 10 == 0
                ? (Bool.random(using: &random) ? 90 - height : -90)
                : Double.random(in: -90...(90 - height), using: &random)
            let minLon: Double = index % 3 == 0
                ? 180 - Double.random(in: 0...width, using: &random) // crosses or touches 180
                : Double.random(in: -180..<180, using: &random)
            let maxLon = GeoTestSampling.wrapped(minLon + width)
            let box = GeoBoundingBox(minLat: minLat, maxLat: min(90, minLat + height), minLon: minLon, maxLon: maxLon)
            let ranges = GeohashCover.box(box)
            #expect(!ranges.isEmpty && ranges.count <= GeohashCover.maximumRangeCount)
            #expect(GeoTestSampling.areSortedAndDisjoint(ranges))
            var points: [GeoPoint] = (0..<24).map { _ in
                GeoPoint(lat: Double.random(in: (box.minLat - height * 0.1)...(box.maxLat + height * 0.1), using: &random),
                         lon: GeoTestSampling.wrapped(minLon + Double.random(in: (-0.1 * width)...(1.1 * width), using: &random)))
            }
            points += [GeoPoint(lat: box.minLat, lon: box.minLon), GeoPoint(lat: box.maxLat, lon: box.maxLon),
                       GeoPoint(lat: box.maxLat, lon: 180), GeoPoint(lat: box.minLat, lon: -180)]
            for point in points where box.contains(point) {
                pointsInside += 1
                #expect(GeoTestSampling.anyContains(ranges, GeoTestSampling.storageHash(point)),
                        "box \(box): missed \(point.lat),\(point.lon)")
            }
        }
        #expect(pointsInside > 10_000)
    }

    /// Checks boxes that wrap, span all longitudes, need clamping or are empty.
    @Test("boxes: wrapping, full longitude, clamping and empty input")
    func boxEdgeCases() {
        let crossing = GeoBoundingBox(minLat: -10, maxLat: 10, minLon: 170, maxLon: -170)
        #expect(crossing.crossesAntimeridian)
        #expect(crossing.contains(GeoPoint(lat: 0, lon: 180)) && crossing.contains(GeoPoint(lat: 0, lon: -175)))
        #expect(!crossing.contains(GeoPoint(lat: 0, lon: 0)))
        #expect(GeoBoundingBox(minLat: 0, maxLat: 1, minLon: -180, maxLon: -179).contains(GeoPoint(lat: 0.5, lon: 180)))
        // ±180 are one meridian: a box ending on one side holds points stored on the other.
        for (box, point) in [
            (GeoBoundingBox(minLat: 0, maxLat: 10, minLon: -180, maxLon: -170), GeoPoint(lat: 5, lon: 180)),
            (GeoBoundingBox(minLat: 0, maxLat: 10, minLon: 170, maxLon: 180), GeoPoint(lat: 5, lon: -180)),
        ] {
            #expect(box.contains(point))
            #expect(GeoTestSampling.anyContains(GeohashCover.box(box), GeoTestSampling.storageHash(point)))
        }
        // Unwrapped eastern longitudes mean the same box.
        #expect(GeohashCover.box(GeoBoundingBox(minLat: -10, maxLat: 10, minLon: 170, maxLon: 190)) == GeohashCover.box(crossing))
        for box in [GeoBoundingBox.world, GeoBoundingBox(minLat: -100, maxLat: 100, minLon: 0, maxLon: 400)] {
            let ranges = GeohashCover.box(box)
            #expect(ranges.count == 1 && ranges[0].contains("0000000000") && ranges[0].upper == GeohashRange.endOfKeySpace)
        }
        #expect(GeohashCover.box(GeoBoundingBox(minLat: 5, maxLat: 4, minLon: 0, maxLon: 1)).isEmpty)
        #expect(GeohashCover.box(GeoBoundingBox(minLat: .nan, maxLat: 4, minLon: 0, maxLon: 1)).isEmpty)
    }

    /// Checks circles with degenerate or whole-world radii and circles around a pole.
    @Test("circles: degenerate radii, whole-world radii and a pole inside")
    func circleEdgeCases() {
        let seoul = GeoPoint(lat: 37.5665, lon: 126.978)
        #expect(GeohashCover.circle(center: seoul, radiusMeters: -1).isEmpty)
        #expect(GeohashCover.circle(center: seoul, radiusMeters: .nan).isEmpty)
        #expect(GeohashCover.circle(center: GeoPoint(lat: .nan, lon: 0), radiusMeters: 10).isEmpty)
        let zero = GeohashCover.circle(center: seoul, radiusMeters: 0)
        #expect(zero.count == 1 && zero[0].contains(GeoTestSampling.storageHash(seoul)))
        #expect(GeohashCover.circle(center: seoul, radiusMeters: 30_000_000) == [GeohashRange(lower: "0", upper: "~")])
        #expect(GeohashCover.circle(center: seoul, radiusMeters: .infinity) == [GeohashRange(lower: "0", upper: "~")])
        // A circle around the North Pole holds every longitude near the pole.
        let ranges = GeohashCover.circle(center: GeoPoint(lat: 89.99, lon: 45), radiusMeters: 5_000)
        for lon in stride(from: -180.0, through: 180, by: 7.5) {
            #expect(GeoTestSampling.anyContains(ranges, GeoTestSampling.storageHash(GeoPoint(lat: 89.999, lon: lon))))
        }
    }

    /// Checks that range counts stay small and covers stay tight at latitudes -80...80.
    @Test("range counts stay small and covers stay tight at latitudes -80...80")
    func rangeCountsAndTightness() {
        let storageGrid = Geohash.Grid(precision: Geohash.storagePrecision)
        for lat in stride(from: -80.0, through: 80, by: 10) {
            for radius in [10.0, 35, 100, 350, 1_000, 3_500, 10_000, 35_000, 50_000] {
                let center = GeoPoint(lat: lat, lon: 126.9 + lat / 7)
                let ranges = GeohashCover.circle(center: center, radiusMeters: radius)
                #expect(ranges.count <= 64)
                // Area of the cover (storage cells of equal size at this latitude) against the circle's.
                guard let cover = GeohashCover.circleCover(center: center, radiusMeters: radius) else {
                    Issue.record("no cover")
                    continue
                }
                let cellCount = cover.spans.reduce(0.0) { $0 + Double($1.upper - $1.lower) }
                let meters = Haversine.earthRadiusMeters * .pi / 180
                let cellArea = storageGrid.cellHeight * meters * storageGrid.cellWidth * meters * cos(lat * .pi / 180)
                let ratio = cellCount * cellArea / (.pi * radius * radius)
                #expect(ratio < 4, "lat \(lat) radius \(radius): cover is \(ratio)× the circle")
            }
        }
    }

    /// Checks that precision follows radius and latitude.
    @Test("precision follows radius and latitude")
    func precisionChoice() throws {
        let equator = try #require(GeohashCover.circleCover(center: GeoPoint(lat: 0, lon: 10), radiusMeters: 1_000))
        let north = try #require(GeohashCover.circleCover(center: GeoPoint(lat: 80, lon: 10), radiusMeters: 1_000))
        let tiny = try #require(GeohashCover.circleCover(center: GeoPoint(lat: 0, lon: 10), radiusMeters: 2))
        let wide = try #require(GeohashCover.circleCover(center: GeoPoint(lat: 0, lon: 10), radiusMeters: 50_000))
        #expect(tiny.precision == Geohash.storagePrecision)
        #expect(wide.precision < equator.precision)
        #expect(north.precision < equator.precision)
    }

    /// A random box of 0.0001° to 60° by 200° (one in eight touching the north pole, some crossing the antimeridian), with
    /// its height and width, and a point near it (up to 3,000 km from its centre) or anywhere, for the `index`th case.
    static func randomBoxAndPoint(
        _ index: Int, using random: inout SeededRandom
    ) -> (box: GeoBoundingBox, point: GeoPoint, height: Double, width: Double) {
        let height = exp(Double.random(in: log(1e-4)...log(60.0), using: &random))
        let width = exp(Double.random(in: log(1e-4)...log(200.0), using: &random))
        let minLat = index % 8 == 0 ? 90 - height : Double.random(in: -90...(90 - height), using: &random)
        let minLon = Double.random(in: -180..<180, using: &random)
        let box = GeoBoundingBox(minLat: minLat, maxLat: minLat + height, minLon: minLon, maxLon: GeoTestSampling.wrapped(minLon + width))
        let center = GeoPoint(lat: box.minLat + height / 2, lon: GeoTestSampling.wrapped(minLon + width / 2))
        let point = index % 2 == 0
            ? GeoTestSampling.randomPoint(near: center, radiusMeters: Double.random(in: 1...3_000_000, using: &random), using: &random)
            : GeoPoint(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180..<180, using: &random))
        return (box, point, height, width)
    }

    @Test("maximumDistance bounds every point of the box (grid brute force) and is its farthest corner, or is infinite when the box reaches 90° of longitude from the point")
    func maximumDistanceProperty() {
        var random = SeededRandom(seed: 6)
        var bounded = 0
        for index in 0..<300 {
            let (box, point, height, width) = Self.randomBoxAndPoint(index, using: &random)
            let minLon = box.minLon
            let bound = GeohashCover.maximumDistance(from: point, to: box)
            let opposite = GeoPoint(lat: box.minLat, lon: GeoTestSampling.wrapped(point.lon + 180))
            let within90 = [box.minLon, box.maxLon].allSatisfy { abs(GeoTestSampling.wrapped($0 - point.lon)) < 90 }
            #expect(bound.isInfinite == (!within90 || box.contains(opposite)), "box \(box), point \(point)")
            guard bound.isFinite else { continue }
            bounded += 1
            let steps = 60
            let grid = (0...steps).flatMap { row in
                (0...steps).map { column in
                    GeoPoint(lat: box.minLat + Double(row) / Double(steps) * height,
                             lon: GeoTestSampling.wrapped(minLon + Double(column) / Double(steps) * width))
                }
            }
            let sampledMaximum = grid.map { Haversine.distance(point, $0) }.max() ?? 0
            #expect(sampledMaximum <= bound, "box \(box), point \(point): \(sampledMaximum) > \(bound)")
            #expect(bound - sampledMaximum < 0.01, "the farthest corner is on the grid")
        }
        #expect(bounded > 100)
    }

    /// Checks that minimumDistance is an exact lower bound (boundary brute force).
    @Test("minimumDistance is an exact lower bound (boundary brute force)")
    func minimumDistanceProperty() {
        var random = SeededRandom(seed: 5)
        for index in 0..<400 {
            let (box, point, height, width) = Self.randomBoxAndPoint(index, using: &random)
            let minLon = box.minLon
            let bound = GeohashCover.minimumDistance(from: point, to: box)
            if box.contains(point) {
                #expect(bound == 0)
                continue
            }
            // The nearest point lies on the boundary; sample it densely.
            let steps = 400
            var samples: [GeoPoint] = []
            for step in 0...steps {
                let t = Double(step) / Double(steps)
                let lat = box.minLat + t * height
                let lon = GeoTestSampling.wrapped(minLon + t * width)
                samples += [GeoPoint(lat: lat, lon: box.minLon), GeoPoint(lat: lat, lon: box.maxLon),
                            GeoPoint(lat: box.minLat, lon: lon), GeoPoint(lat: box.maxLat, lon: lon)]
            }
            let sampledMinimum = samples.map { Haversine.distance(point, $0) }.min() ?? 0
            let spacing = max(
                Haversine.distance(GeoPoint(lat: 0, lon: 0), GeoPoint(lat: height / Double(steps), lon: 0)),
                Haversine.distance(GeoPoint(lat: 0, lon: 0), GeoPoint(lat: 0, lon: width / Double(steps)))
            )
            #expect(bound <= sampledMinimum, "box \(box) point \(point)")
            #expect(sampledMinimum - bound <= spacing + 0.01, "box \(box) point \(point): not tight")
        }
    }

    /// Checks minimumDistance on hand-computed cases.
    @Test("minimumDistance known cases")
    func minimumDistanceCases() {
        let oneDegree = Haversine.earthRadiusMeters * .pi / 180
        let box = GeoBoundingBox(minLat: -1, maxLat: 1, minLon: -179, maxLon: -170)
        #expect(abs(GeohashCover.minimumDistance(from: GeoPoint(lat: 0, lon: 179), to: box) - 2 * oneDegree) < 0.01)
        #expect(GeohashCover.minimumDistance(from: GeoPoint(lat: 0, lon: -175), to: box) == 0)
        let crossing = GeoBoundingBox(minLat: -1, maxLat: 1, minLon: 170, maxLon: -170)
        #expect(GeohashCover.minimumDistance(from: GeoPoint(lat: 0, lon: 180), to: crossing) == 0)
        #expect(abs(GeohashCover.minimumDistance(from: GeoPoint(lat: 3, lon: -180), to: crossing) - 2 * oneDegree) < 0.01)
        // Over the pole: the nearest point of a polar box can be the pole itself.
        let polar = GeoBoundingBox(minLat: 80, maxLat: 90, minLon: 100, maxLon: 110)
        #expect(abs(GeohashCover.minimumDistance(from: GeoPoint(lat: 89, lon: 0), to: polar) - oneDegree) < 0.01)
        #expect(GeohashCover.minimumDistance(from: GeoPoint(lat: .nan, lon: 0), to: polar) == 0)
    }
}
