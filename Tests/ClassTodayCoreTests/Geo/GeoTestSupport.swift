import Foundation
import ClassTodayTestSupport
@testable import ClassTodayCore


/// Shared helpers for the geo tests.
enum GeoTestSampling {
    /// The point `distanceMeters` from `start` along the initial bearing `bearingDegrees`, with its
    /// longitude wrapped into -180..<180.
    static func destination(from start: GeoPoint, distanceMeters: Double, bearingDegrees: Double) -> GeoPoint {
        let angle = distanceMeters / Haversine.earthRadiusMeters
        let bearing = bearingDegrees * .pi / 180
        let lat1 = start.lat * .pi / 180
        let lon1 = start.lon * .pi / 180
        let sinLat2 = sin(lat1) * cos(angle) + cos(lat1) * sin(angle) * cos(bearing)
        let lat2 = asin(min(1, max(-1, sinLat2)))
        let lon2 = lon1 + atan2(sin(bearing) * sin(angle) * cos(lat1), cos(angle) - sin(lat1) * sinLat2)
        return GeoPoint(lat: lat2 * 180 / .pi, lon: wrapped(lon2 * 180 / .pi))
    }

    /// `lon` wrapped into -180..<180.
    static func wrapped(_ lon: Double) -> Double {
        var value = (lon + 180).truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        if value >= 360 { value = 0 }
        return value - 180
    }

    /// A random search center: mostly mid-latitudes, a share within a degree of the antimeridian and a
    /// share within 100 km of a pole.
    static func randomCenter(using random: inout SeededRandom) -> GeoPoint {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            return GeoPoint(lat: Double.random(in: -80...80, using: &random),
                            lon: wrapped(180 + Double.random(in: -1...1, using: &random)))
        case 2, 3:
            let lat = Double.random(in: 89.1...90, using: &random)
            return GeoPoint(lat: Bool.random(using: &random) ? lat : -lat,
                            lon: Double.random(in: -180..<180, using: &random))
        default:
            return GeoPoint(lat: Double.random(in: -80...80, using: &random),
                            lon: Double.random(in: -180..<180, using: &random))
        }
    }

    /// A radius from 1 m to 50 km, uniform in its logarithm.
    static func randomRadius(using random: inout SeededRandom) -> Double {
        exp(Double.random(in: log(1.0)...log(50_000.0), using: &random))
    }

    /// A random point near a circle: inside, close to its edge or somewhat outside.
    static func randomPoint(near center: GeoPoint, radiusMeters: Double, using random: inout SeededRandom) -> GeoPoint {
        let fraction: Double
        switch Int.random(in: 0..<10, using: &random) {
        case 0...4: fraction = Double.random(in: 0...1, using: &random).squareRoot()
        case 5...7: fraction = Double.random(in: 0.97...1.03, using: &random)
        default: fraction = Double.random(in: 0...1.5, using: &random)
        }
        return destination(from: center, distanceMeters: radiusMeters * fraction,
                           bearingDegrees: Double.random(in: 0..<360, using: &random))
    }

    /// The storage geohash of `point`, as stored in the database.
    static func storageHash(_ point: GeoPoint) -> String {
        Geohash(point, precision: Geohash.storagePrecision).string
    }

    /// Whether one of `ranges` holds `geohash`.
    static func anyContains(_ ranges: [GeohashRange], _ geohash: String) -> Bool {
        ranges.contains { $0.contains(geohash) }
    }

    /// Whether `ranges` are non-empty intervals, sorted and pairwise disjoint in byte order.
    static func areSortedAndDisjoint(_ ranges: [GeohashRange]) -> Bool {
        for range in ranges where !range.lower.utf8.lexicographicallyPrecedes(range.upper.utf8) {
            return false
        }
        for (first, second) in zip(ranges, ranges.dropFirst())
            where second.lower.utf8.lexicographicallyPrecedes(first.upper.utf8) {
            return false
        }
        return true
    }
}
