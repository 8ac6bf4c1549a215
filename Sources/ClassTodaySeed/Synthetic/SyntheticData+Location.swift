import ClassTodayCore
import ClassTodayServer
import Foundation

extension SyntheticData {
    /// A generated position with the city and district it belongs to, as indexes into ``KoreanCities/all``.
    struct Place {
        /// The position.
        let point: GeoPoint
        /// The city's index in ``KoreanCities/all``.
        let cityIndex: Int
        /// The district's index in the city's ``KoreanCity/districtAreas``.
        let districtIndex: Int

        /// The city.
        var city: KoreanCity { KoreanCities.all[cityIndex] }

        /// The district's name.
        var district: String { city.districtAreas[districtIndex].name }
    }

    /// Kilometres per degree of latitude (and of longitude at the equator).
    static let kilometersPerDegree = Haversine.earthRadiusMeters * .pi / 180 / 1000

    /// A location: with probability ``clusteredShare`` near one of the cities (chosen by population, then a
    /// district, with a normal spread of about two kilometres around the district centre), otherwise uniform
    /// over South Korea's bounding box (lat 33.1...38.6, lon 124.6...131.9), named after the nearest city
    /// and district.
    public mutating func location() -> (point: GeoPoint, city: KoreanCity, district: String) {
        let place = nextPlace()
        return (place.point, place.city, place.district)
    }

    /// The next listing place, clustered or background as ``clusteredShare`` says.
    mutating func nextPlace() -> Place {
        generator.chance(clusteredShare) ? clusteredPlace() : backgroundPlace()
    }

    /// A place near a city chosen by population weight.
    mutating func clusteredPlace() -> Place {
        let cityIndex = KoreanCities.weightTable.pick(using: &generator)
        let city = KoreanCities.all[cityIndex]
        let districtIndex = generator.index(city.districtAreas.count)
        let point = scatter(around: city.districtAreas[districtIndex].center, kilometers: city.spreadKilometers)
        return Place(point: point, cityIndex: cityIndex, districtIndex: districtIndex)
    }

    /// A place uniform over the bounding box, named after the nearest city and its nearest district.
    mutating func backgroundPlace() -> Place {
        let latitudes = Self.latitudeRange
        let longitudes = Self.longitudeRange
        let point = GeoPoint(
            lat: latitudes.lowerBound + generator.unit() * (latitudes.upperBound - latitudes.lowerBound),
            lon: longitudes.lowerBound + generator.unit() * (longitudes.upperBound - longitudes.lowerBound)
        )
        return named(point)
    }

    /// `point` with the nearest city and district.
    func named(_ point: GeoPoint) -> Place {
        let cityIndex = KoreanCities.nearestCityIndex(to: point)
        let districtIndex = KoreanCities.all[cityIndex].nearestDistrictIndex(to: point)
        return Place(point: point, cityIndex: cityIndex, districtIndex: districtIndex)
    }

    /// A point normally distributed around `center` with a standard deviation of `kilometers` on each axis,
    /// kept inside the bounding box.
    mutating func scatter(around center: GeoPoint, kilometers: Double) -> GeoPoint {
        let (east, north) = generator.gaussianPair()
        let degrees = kilometers / Self.kilometersPerDegree
        let lat = center.lat + north * degrees
        let lon = center.lon + east * degrees / cos(center.lat * .pi / 180)
        return GeoPoint(
            lat: min(Self.latitudeRange.upperBound, max(Self.latitudeRange.lowerBound, lat)),
            lon: min(Self.longitudeRange.upperBound, max(Self.longitudeRange.lowerBound, lon))
        )
    }
}
