import ClassTodayCore
import ClassTodayServer
import Foundation

/// A South Korean city that synthetic users and listings cluster around.
public struct KoreanCity: Sendable, Hashable {
    /// A district (구, 군 or 시) of a city, located by its office.
    public struct District: Sendable, Hashable {
        /// The district's name as listings show it (`관악구`).
        public let name: String
        /// The approximate centre of the district (its office).
        public let center: GeoPoint
        /// Real road names in the district, used to write addresses; empty means the city's roads.
        public let roads: [String]

        /// Creates a district.
        public init(name: String, center: GeoPoint, roads: [String] = []) {
            self.name = name
            self.center = center
            self.roads = roads
        }
    }

    /// The short city name (`서울`, `수원`).
    public let name: String
    /// How addresses in the city begin (`서울`, `경기 수원시`).
    public let addressPrefix: String
    /// The city centre (the city hall).
    public let center: GeoPoint
    /// The relative share of generated points near this city, roughly its population in millions.
    public let weight: Double
    /// The spread (standard deviation, kilometres) of generated points around each district centre.
    public let spreadKilometers: Double
    /// The district names, in the order of ``districtAreas``.
    public let districts: [String]
    /// The districts with their centres and roads.
    public let districtAreas: [District]
    /// Real road names in the city, for districts that list none of their own.
    public let roads: [String]

    /// Creates a city.
    public init(
        name: String, addressPrefix: String, center: GeoPoint, weight: Double, spreadKilometers: Double,
        districtAreas: [District], roads: [String]
    ) {
        self.name = name
        self.addressPrefix = addressPrefix
        self.center = center
        self.weight = weight
        self.spreadKilometers = spreadKilometers
        self.districts = districtAreas.map(\.name)
        self.districtAreas = districtAreas
        self.roads = roads
    }

    /// The roads of the district at `index` (its own, or the city's when it lists none).
    func roads(ofDistrictAt index: Int) -> [String] {
        let own = districtAreas[index].roads
        return own.isEmpty ? roads : own
    }

    /// The index of the district whose centre is nearest to `point` (flat-earth distance, fine at city scale).
    func nearestDistrictIndex(to point: GeoPoint) -> Int {
        let scale = cos(point.lat * .pi / 180)
        var best = 0
        var bestDistance = Double.infinity
        for (index, area) in districtAreas.enumerated() {
            let dLat = area.center.lat - point.lat
            let dLon = (area.center.lon - point.lon) * scale
            let distance = dLat * dLat + dLon * dLon
            if distance < bestDistance {
                bestDistance = distance
                best = index
            }
        }
        return best
    }
}
