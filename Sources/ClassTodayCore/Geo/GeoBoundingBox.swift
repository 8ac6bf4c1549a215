/// A latitude/longitude rectangle with inclusive edges, in degrees.
///
/// When `minLon > maxLon` the box wraps across the antimeridian: it spans from `minLon` east to 180°
/// and continues from -180° to `maxLon`. Longitudes 180 and -180 name the same meridian and are treated
/// as equal by ``contains(_:)``.
public struct GeoBoundingBox: Sendable, Hashable {
    /// Southern edge in degrees.
    public var minLat: Double
    /// Northern edge in degrees.
    public var maxLat: Double
    /// Western edge in degrees.
    public var minLon: Double
    /// Eastern edge in degrees; smaller than ``minLon`` when the box crosses the antimeridian.
    public var maxLon: Double

    /// A box with the given edges (degrees).
    public init(minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        self.minLat = minLat
        self.maxLat = maxLat
        self.minLon = minLon
        self.maxLon = maxLon
    }

    /// The whole globe.
    public static let world = GeoBoundingBox(minLat: -90, maxLat: 90, minLon: -180, maxLon: 180)

    /// Whether the box wraps across the 180° meridian (`minLon > maxLon`).
    public var crossesAntimeridian: Bool {
        minLon > maxLon
    }

    /// The east-west extent in degrees (0...360), accounting for wrapping.
    public var longitudeSpan: Double {
        crossesAntimeridian ? maxLon - minLon + 360 : maxLon - minLon
    }

    /// Whether `point` lies in the box (edges included). The point's longitude is wrapped into
    /// -180...180 first, and ±180 count as the same meridian.
    public func contains(_ point: GeoPoint) -> Bool {
        point.lat >= minLat && point.lat <= maxLat && containsLongitude(point.lon)
    }

    /// Whether the box's longitudes hold `lon`, wrapped into -180...180 first; ±180 count as the same meridian.
    public func containsLongitude(_ lon: Double) -> Bool {
        let lon = GeoPoint.wrappedLongitude(lon)
        if containsLongitudeExactly(lon) { return true }
        if lon == 180 { return containsLongitudeExactly(-180) }
        if lon == -180 { return containsLongitudeExactly(180) }
        return false
    }

    /// Whether `lon` is inside the longitude interval, comparing the numbers as given (no ±180 equivalence).
    func containsLongitudeExactly(_ lon: Double) -> Bool {
        crossesAntimeridian ? (lon >= minLon || lon <= maxLon) : (lon >= minLon && lon <= maxLon)
    }
}
