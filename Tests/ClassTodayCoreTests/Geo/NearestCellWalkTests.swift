import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Tests for ``NearestCellWalk``.
@Suite("Nearest cell walk")
struct NearestCellWalkTests {
    /// Walks a circle, splitting each cell once below the starting precision, and returns the cells read.
    func readCells(center: GeoPoint, radius: Double) -> (cells: [NearestCellWalk.Entry], ordered: Bool) {
        var walk = NearestCellWalk(center: center, radius: radius)
        var read: [NearestCellWalk.Entry] = []
        var last = -Double.infinity
        var ordered = true
        var startingPrecision: Int?
        while let entry = walk.popNearest() {
            ordered = ordered && entry.minimumDistance >= last
            last = entry.minimumDistance
            let starting = startingPrecision ?? entry.cell.precision
            startingPrecision = starting
            if entry.cell.precision == starting && starting < Geohash.storagePrecision {
                walk.split(entry)
            } else {
                read.append(entry)
            }
        }
        return (read, ordered)
    }

    /// Checks, on random circles (antimeridian and poles included), that cells come nearest first, that every
    /// point within the radius lies in a cell read, and that no cell read lies beyond the radius.
    @Test("cells come nearest first and cover the circle (brute force, antimeridian and poles)")
    func coverage() {
        var random = SeededRandom(seed: 4242)
        var inside = 0
        for _ in 0..<400 {
            let center = GeoTestSampling.randomCenter(using: &random)
            let radius = GeoTestSampling.randomRadius(using: &random)
            let (cells, ordered) = readCells(center: center, radius: radius)
            #expect(ordered, "\(center) \(radius)")
            #expect(cells.allSatisfy { $0.minimumDistance <= radius })
            #expect(Set(cells.map(\.cell)).count == cells.count)
            var points = (0..<20).map { _ in GeoTestSampling.randomPoint(near: center, radiusMeters: radius, using: &random) }
            points += [center, GeoPoint(lat: center.lat, lon: 180), GeoPoint(lat: center.lat, lon: -180),
                       GeoPoint(lat: 90, lon: center.lon), GeoPoint(lat: -90, lon: center.lon)]
            for point in points where Haversine.distance(center, point) <= radius {
                inside += 1
                let hash = GeoTestSampling.storageHash(point)
                let holder = cells.first { hash.hasPrefix($0.cell.string) }
                #expect(holder != nil, "\(center) r \(radius): missed \(point)")
                if let holder {
                    #expect(holder.minimumDistance <= Haversine.distance(center, point) + 0.01)
                }
            }
        }
        #expect(inside > 5_000)
    }

    /// Checks the degenerate walks.
    @Test("degenerate circles give empty walks; the whole Earth starts from the 32 first cells")
    func degenerate() {
        var negative = NearestCellWalk(center: GeoPoint(lat: 37.5, lon: 127), radius: -1)
        #expect(negative.popNearest() == nil)
        var notANumber = NearestCellWalk(center: GeoPoint(lat: .nan, lon: 127), radius: 100)
        #expect(notANumber.isEmpty && notANumber.popNearest() == nil)
        var world = NearestCellWalk(center: GeoPoint(lat: 37.5, lon: 127), radius: .infinity)
        var count = 0
        while let entry = world.popNearest() {
            #expect(entry.cell.precision == 1)
            count += 1
        }
        #expect(count == 32)
        var point = NearestCellWalk(center: GeoPoint(lat: 37.5, lon: 127), radius: 0)
        let first = point.popNearest()
        #expect(first?.minimumDistance == 0 && first?.cell.contains(GeoPoint(lat: 37.5, lon: 127)) == true)
    }
}
