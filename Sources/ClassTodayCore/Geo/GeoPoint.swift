/// A position on the Earth's surface in decimal degrees (WGS 84 latitude and longitude).
///
/// Encodes as `{"lat": …, "lon": …}`. The type does not enforce ranges; callers validate input
/// (see ``isValid``) before storing it.
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Latitude in degrees, positive north; valid values lie in -90...90.
    public var lat: Double
    /// Longitude in degrees, positive east; valid values lie in -180...180.
    public var lon: Double

    /// Coordinates nearer to zero than this many degrees (about 0.1 mm on the ground) are read as zero: no position
    /// is known that precisely, and distances over such values (`5e-324`) underflow, which PostgreSQL's arithmetic
    /// refuses with an error.
    public static let zeroTolerance = 1e-9

    /// A point at the given latitude and longitude (degrees), each read as zero when within ``zeroTolerance`` of it.
    public init(lat: Double, lon: Double) {
        self.lat = abs(lat) < Self.zeroTolerance ? 0 : lat
        self.lon = abs(lon) < Self.zeroTolerance ? 0 : lon
    }

    /// Decodes `{"lat": …, "lon": …}` as ``init(lat:lon:)`` reads them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(lat: try container.decode(Double.self, forKey: .lat), lon: try container.decode(Double.self, forKey: .lon))
    }

    private enum CodingKeys: String, CodingKey { case lat, lon }

    /// Whether both coordinates are finite and inside their ranges
    /// (latitude in -90...90, longitude in -180...180).
    public var isValid: Bool {
        lat.isFinite && lon.isFinite && (-90.0...90.0).contains(lat) && (-180.0...180.0).contains(lon)
    }

    /// The point with its latitude clamped to -90...90 and its longitude wrapped into -180...180
    /// (values already in range are kept as they are, so 180 stays 180); non-finite coordinates become 0.
    var normalized: GeoPoint {
        GeoPoint(lat: GeoPoint.clampedLatitude(lat), lon: GeoPoint.wrappedLongitude(lon))
    }

    /// `latitude` clamped to -90...90; non-finite values other than ±infinity become 0.
    static func clampedLatitude(_ latitude: Double) -> Double {
        if latitude.isNaN { return 0 }
        return min(90, max(-90, latitude))
    }

    /// `longitude` wrapped into -180...180; values already in that range are returned unchanged,
    /// non-finite values become 0.
    static func wrappedLongitude(_ longitude: Double) -> Double {
        guard longitude.isFinite else { return 0 }
        if (-180.0...180.0).contains(longitude) { return longitude }
        var shifted = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if shifted < 0 { shifted += 360 }
        return shifted - 180
    }
}
