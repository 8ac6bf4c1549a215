import Foundation
import Testing
@testable import ClassTodayCore

/// Tests for ``GeoPoint``.
@Suite("GeoPoint")
struct GeoPointTests {
    /// Checks that a point encodes as lat/lon and decodes back.
    @Test("encodes as lat/lon and decodes back")
    func codableRoundTrip() throws {
        let point = GeoPoint(lat: 37.5665, lon: 126.978)
        let data = try JSONEncoder().encode(point)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Double])
        #expect(object == ["lat": 37.5665, "lon": 126.978])
        let decoded = try JSONDecoder().decode(GeoPoint.self, from: Data(#"{"lat": -33.9, "lon": 151.2}"#.utf8))
        #expect(decoded == GeoPoint(lat: -33.9, lon: 151.2))
    }

    /// Checks the validity of coordinate ranges.
    @Test("validity of coordinate ranges", arguments: [
        (GeoPoint(lat: 0, lon: 0), true),
        (GeoPoint(lat: 90, lon: 180), true),
        (GeoPoint(lat: -90, lon: -180), true),
        (GeoPoint(lat: 90.0001, lon: 0), false),
        (GeoPoint(lat: 0, lon: -180.5), false),
        (GeoPoint(lat: .nan, lon: 0), false),
        (GeoPoint(lat: 0, lon: .infinity), false),
    ])
    func validity(point: GeoPoint, expected: Bool) {
        #expect(point.isValid == expected)
    }

    /// Checks that normalization clamps latitude and wraps longitude.
    @Test("normalization clamps latitude and wraps longitude")
    func normalization() {
        #expect(GeoPoint(lat: 95, lon: 190).normalized == GeoPoint(lat: 90, lon: -170))
        #expect(GeoPoint(lat: -95, lon: -190).normalized == GeoPoint(lat: -90, lon: 170))
        #expect(GeoPoint(lat: 10, lon: 180).normalized == GeoPoint(lat: 10, lon: 180))
        #expect(GeoPoint(lat: .nan, lon: 540).normalized == GeoPoint(lat: 0, lon: -180))
    }

    /// Checks that coordinates and radii too near zero to mean anything (and to compute with) are read as zero.
    @Test("coordinates within 1e-9 degrees of zero, and radii under a millimetre, are zero; others are kept")
    func nearZero() throws {
        for tiny in [Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, 1.1754943508222875e-38, -1e-10, -0.0] {
            let point = GeoPoint(lat: tiny, lon: tiny)
            #expect(point.lat == 0 && point.lon == 0 && point.lat.sign == .plus && point.lon.sign == .plus)
        }
        #expect(GeoPoint(lat: 1e-9, lon: -2e-9) == GeoPoint(lat: 1e-9, lon: -2e-9))
        #expect(GeoPoint(lat: 1e-9, lon: -2e-9).lat == 1e-9)
        let decoded = try JSONDecoder().decode(GeoPoint.self, from: Data(#"{"lat": 5e-324, "lon": 37.5}"#.utf8))
        #expect(decoded.lat == 0 && decoded.lon == 37.5)
        #expect(ClassSearch.Circle(center: decoded, radius: .leastNonzeroMagnitude).radius == 0)
        #expect(ClassSearch.Circle(center: decoded, radius: 0.001).radius == 0.001)
    }
}
