import ClassTodayCore

extension SeededRandom {
    /// A point within `spread` degrees of `center` in latitude and longitude: longitudes wrap across the
    /// antimeridian and latitudes stop at the poles, so that points near either stay valid.
    public mutating func point(near center: GeoPoint, spread: Double) -> GeoPoint {
        var lon = center.lon + Double.random(in: -spread...spread, using: &self)
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        let lat = min(90, max(-90, center.lat + Double.random(in: -spread...spread, using: &self)))
        return GeoPoint(lat: lat, lon: lon)
    }
}
