import Foundation
@testable import ClassTodayCore

/// Shared helpers for the matching tests.
enum MatchingTestSupport {
    /// A fixed instant for values that need a date.
    static let date = Date(timeIntervalSince1970: 1_790_000_000)

    /// Seoul City Hall.
    static let seoul = GeoPoint(lat: 37.5665, lon: 126.978)


    /// A listing with sensible defaults; override what a test cares about.
    static func listing(
        id: String = "c1", type: ClassType = .sell, name: String = "수학 과외", description: String = "",
        days: [Weekday] = [.mon, .wed], location: GeoPoint? = seoul, price: Int? = 30_000,
        priceUnit: PriceUnit = .perHour, subjects: [Subject] = [.math], targets: [Target] = [.senior],
        status: ClassStatus = .open, writerId: String = "writer"
    ) -> ClassListing {
        ClassListing(
            id: id, type: type, name: name, description: description, days: days, time: nil, place: nil,
            location: location, keywordLocation: nil, price: price, priceUnit: priceUnit, subjects: subjects,
            targets: targets, capacity: 1, status: status, imageIds: [], writerId: writerId, favoriteCount: 0,
            createdAt: date, updatedAt: date
        )
    }

    /// The point `distanceMeters` from `start` along the initial bearing `bearingDegrees` (great circle),
    /// with its longitude wrapped into -180...180.
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

    /// `lon` wrapped into -180...180 (values already in range unchanged).
    static func wrapped(_ lon: Double) -> Double {
        if (-180.0...180.0).contains(lon) { return lon }
        var value = (lon + 180).truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value - 180
    }
}
