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
}
