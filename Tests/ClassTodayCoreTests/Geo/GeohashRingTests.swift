import Foundation
import Testing
@testable import ClassTodayCore

/// Tests for ``GeohashRing``.
@Suite("GeohashRing")
struct GeohashRingTests {
    /// Checks that every point within the radius is in exactly one ring, no closer than its minimum.
    @Test("every point within the radius is in exactly one ring, no closer than its minimum")
    func ringProperty() {
        var random = GeoTestRandom(seed: 99)
        var pointsInside = 0
        for _ in 0..<400 {
            let center = GeoTestSampling.randomCenter(using: &random)
            let radius = GeoTestSampling.randomRadius(using: &random)
            let rings = GeohashCover.rings(center: center, radiusMeters: radius)
            #expect(rings.first?.minimumDistanceMeters == 0)
            #expect(rings.last?.coveredRadiusMeters == radius)
            #expect(rings.count <= GeohashCover.maximumRingCount)
            for (inner, outer) in zip(rings, rings.dropFirst()) {
                #expect(inner.minimumDistanceMeters < outer.minimumDistanceMeters)
                #expect(outer.minimumDistanceMeters <= inner.coveredRadiusMeters)
            }
            for ring in rings {
                #expect(!ring.ranges.isEmpty && GeoTestSampling.areSortedAndDisjoint(ring.ranges))
                #expect(ring.ranges.count <= 96)
            }
            var points = (0..<24).map { _ in
                GeoTestSampling.randomPoint(near: center, radiusMeters: radius, using: &random)
            }
            // Points near the inner ring radii.
            for ring in rings {
                points.append(GeoTestSampling.destination(
                    from: center,
                    distanceMeters: ring.coveredRadiusMeters * Double.random(in: 0.98...1.02, using: &random),
                    bearingDegrees: Double.random(in: 0..<360, using: &random)))
            }
            for point in points {
                let distance = Haversine.distance(center, point)
                let hash = GeoTestSampling.storageHash(point)
                let holders = rings.indices.filter { GeoTestSampling.anyContains(rings[$0].ranges, hash) }
                #expect(holders.count <= 1, "rings overlap at \(hash)")
                guard distance <= radius else { continue }
                pointsInside += 1
                guard holders.count == 1, let index = holders.first else {
                    Issue.record("center \(center) r \(radius): \(point) in \(holders.count) rings")
                    continue
                }
                #expect(distance >= rings[index].minimumDistanceMeters)
                if let first = rings.firstIndex(where: { distance <= $0.coveredRadiusMeters }) {
                    #expect(index <= first)
                }
            }
        }
        #expect(pointsInside > 5_000)
    }

    /// Checks that ring radii halve inwards down to the innermost radius.
    @Test("ring radii halve inwards down to the innermost radius")
    func radii() {
        #expect(GeohashCover.ringRadii(for: 50) == [50])
        #expect(GeohashCover.ringRadii(for: 1_000) == [125, 250, 500, 1_000])
        let wide = GeohashCover.ringRadii(for: 50_000)
        #expect(wide.count == GeohashCover.maximumRingCount && wide.last == 50_000 && wide.first == 390.625)
        #expect(GeohashCover.rings(center: GeoPoint(lat: 0, lon: 0), radiusMeters: -5).isEmpty)
    }

    /// Checks that inner rings use finer cells than outer ones.
    @Test("inner rings use finer cells than outer ones")
    func finerInside() throws {
        let rings = GeohashCover.rings(center: GeoPoint(lat: 37.5665, lon: 126.978), radiusMeters: 20_000)
        #expect(rings.count == 8)
        let first = try #require(rings.first)
        let last = try #require(rings.last)
        #expect(first.ranges[0].lower.count > last.ranges[0].lower.count)
    }
}
