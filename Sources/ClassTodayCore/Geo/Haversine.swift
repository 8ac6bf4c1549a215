import Foundation

/// Great-circle distances on a spherical Earth.
public enum Haversine {
    /// The mean Earth radius (IUGG R1) in meters used for every distance in the geo code.
    public static let earthRadiusMeters = 6_371_008.8

    /// The great-circle distance in meters between `a` and `b`.
    ///
    /// Uses the haversine formula together with its complement, `1 - hav(θ)` expressed as a sum of
    /// non-negative terms, so that both tiny and nearly antipodal distances keep full precision.
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        centralAngle(a, b) * earthRadiusMeters
    }

    /// The central angle in radians (0...π) between `a` and `b`.
    static func centralAngle(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let lat1 = radians(a.lat)
        let lat2 = radians(b.lat)
        let halfDeltaLat = (lat2 - lat1) / 2
        let halfDeltaLon = radians(b.lon - a.lon) / 2
        let halfLatSum = (lat1 + lat2) / 2

        let sinHalfDeltaLat = sin(halfDeltaLat)
        let cosHalfDeltaLat = cos(halfDeltaLat)
        let sinHalfDeltaLon = sin(halfDeltaLon)
        let cosHalfDeltaLon = cos(halfDeltaLon)
        let sinHalfLatSum = sin(halfLatSum)

        // hav(θ) = hav(Δφ) + cos φ1 cos φ2 hav(Δλ)
        let haversineOfAngle = sinHalfDeltaLat * sinHalfDeltaLat
            + cos(lat1) * cos(lat2) * sinHalfDeltaLon * sinHalfDeltaLon
        // 1 - hav(θ) = (1 - hav(Δφ)) (1 - hav(Δλ)) + hav(φ1 + φ2) hav(Δλ)
        let complement = cosHalfDeltaLat * cosHalfDeltaLat * cosHalfDeltaLon * cosHalfDeltaLon
            + sinHalfLatSum * sinHalfLatSum * sinHalfDeltaLon * sinHalfDeltaLon
        return 2 * atan2(max(0, haversineOfAngle).squareRoot(), max(0, complement).squareRoot())
    }

    /// `degrees` converted to radians.
    static func radians(_ degrees: Double) -> Double {
        degrees * .pi / 180
    }

    /// `radians` converted to degrees.
    static func degrees(_ radians: Double) -> Double {
        radians * 180 / .pi
    }
}
