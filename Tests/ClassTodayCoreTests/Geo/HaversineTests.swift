import Foundation
import Testing
@testable import ClassTodayCore

/// Tests for ``Haversine``.
@Suite("Haversine")
struct HaversineTests {
    private let radius = Haversine.earthRadiusMeters

    /// Checks that Seoul City Hall to Busan City Hall is about 325 km.
    @Test("Seoul City Hall to Busan City Hall is about 325 km")
    func seoulToBusan() {
        let seoul = GeoPoint(lat: 37.5663, lon: 126.9779)
        let busan = GeoPoint(lat: 35.1798, lon: 129.0750)
        let distance = Haversine.distance(seoul, busan)
        #expect(abs(distance - 325_000) < 1_000)
        #expect(distance == Haversine.distance(busan, seoul))
    }

    /// Checks that one degree of latitude is about 111.2 km.
    @Test("one degree of latitude is about 111.2 km")
    func oneDegree() {
        let distance = Haversine.distance(GeoPoint(lat: 10, lon: 20), GeoPoint(lat: 11, lon: 20))
        #expect(abs(distance - 111_195.08) < 0.1)
    }

    /// Checks that identical points are zero apart and tiny distances keep precision.
    @Test("identical points are zero apart and tiny distances keep precision")
    func tinyDistances() {
        let point = GeoPoint(lat: 37.5, lon: 127)
        #expect(Haversine.distance(point, point) == 0)
        // One millimetre north.
        let north = GeoPoint(lat: 37.5 + 0.001 / radius * 180 / .pi, lon: 127)
        #expect(abs(Haversine.distance(point, north) - 0.001) < 1e-9)
    }

    /// Checks antipodal and nearly antipodal distances.
    @Test("antipodal and nearly antipodal points")
    func antipodal() {
        let halfCircumference = Double.pi * radius
        #expect(abs(Haversine.distance(GeoPoint(lat: 0, lon: 0), GeoPoint(lat: 0, lon: 180)) - halfCircumference) < 1e-6)
        #expect(abs(Haversine.distance(GeoPoint(lat: 90, lon: 0), GeoPoint(lat: -90, lon: 33)) - halfCircumference) < 1e-6)
        // 1 m short of antipodal along the equator.
        let shortByOneMeter = 180 - 1 / radius * 180 / .pi
        let distance = Haversine.distance(GeoPoint(lat: 0, lon: 0), GeoPoint(lat: 0, lon: shortByOneMeter))
        #expect(abs(distance - (halfCircumference - 1)) < 1e-6)
        // 1 m off antipodal across a meridian.
        let offset = 1 / radius * 180 / .pi
        let across = Haversine.distance(GeoPoint(lat: 45, lon: 10), GeoPoint(lat: -45 + offset, lon: -170))
        #expect(abs(across - (halfCircumference - 1)) < 1e-6)
    }

    /// Checks distances across the antimeridian and over a pole.
    @Test("distances across the antimeridian and over a pole")
    func wrapping() {
        let oneDegree = radius * .pi / 180
        let across = Haversine.distance(GeoPoint(lat: 0, lon: 179.5), GeoPoint(lat: 0, lon: -179.5))
        #expect(abs(across - oneDegree) < 1e-6)
        let overPole = Haversine.distance(GeoPoint(lat: 89.5, lon: 0), GeoPoint(lat: 89.5, lon: 180))
        #expect(abs(overPole - oneDegree) < 1e-6)
    }
}
