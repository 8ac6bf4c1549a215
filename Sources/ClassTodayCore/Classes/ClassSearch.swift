/// A search over listings: an optional area, keyword and filters, a sort order. Every part is optional and
/// they combine with AND.
public struct ClassSearch: Sendable, Hashable {
    /// The largest accepted circle radius, in meters.
    public static let maximumRadius = 50_000.0
    /// The radius used when a centre comes without one, in meters.
    public static let defaultRadius = 3_000.0
    /// The longest accepted keyword query (`q` of a search or an alert), in characters (code points).
    public static let maximumQueryLength = 200

    /// How results are ordered.
    public enum Sort: String, Sendable, Hashable, CaseIterable {
        /// Nearest first (needs a circle); ties by id.
        case distance
        /// Newest first; ties by id.
        case recent
        /// Best keyword match first (needs a keyword): listings whose name holds the keyword, then those whose
        /// description does (``SearchQuery/RelevanceTier``), each newest first; ties by id.
        case relevance
    }

    /// Every point whose great-circle distance from `center` is at most `radius` meters.
    public struct Circle: Sendable, Hashable {
        /// The centre.
        public var center: GeoPoint
        /// The radius in meters.
        public var radius: Double

        /// Radii below this many meters are read as zero, as coordinates near zero are (``GeoPoint/zeroTolerance``).
        public static let zeroTolerance = 1e-3

        /// Creates a circle; a radius below ``zeroTolerance`` is zero.
        public init(center: GeoPoint, radius: Double) {
            self.center = center
            self.radius = radius < Self.zeroTolerance ? 0 : radius
        }
    }

    /// Listings inside this circle.
    public var circle: Circle?

    /// A map viewport; `minLon > maxLon` means it crosses the antimeridian.
    public var box: GeoBoundingBox?
    /// Keyword search over name and description.
    public var keyword: SearchQuery?
    /// Exact district match.
    public var keywordLocation: String?
    /// Buy or sell only.
    public var type: ClassType?
    /// Listings sharing at least one of these subjects.
    public var subjects: [Subject]?
    /// Listings sharing at least one of these targets.
    public var targets: [Target]?
    /// Listings sharing at least one of these days.
    public var days: [Weekday]?
    /// Inclusive lower price bound (listings without a price are excluded when a bound is set).
    public var minPrice: Int?
    /// Inclusive upper price bound.
    public var maxPrice: Int?
    /// Only listings with this status; nil for any status.
    public var status: ClassStatus? = .open
    /// The order of results.
    public var sort: Sort = .recent

    /// An empty search: open listings, newest first.
    public init() {}

    /// The sort used when the client names none: distance with a circle, relevance with a keyword, else recent.
    public static func defaultSort(hasCircle: Bool, hasKeyword: Bool) -> Sort {
        hasCircle ? .distance : hasKeyword ? .relevance : .recent
    }

    /// Whether `listing` satisfies every part of the search except the keyword (checked by ``SearchQuery``)
    /// — the brute-force definition that fast paths are tested against.
    public func matchesFilters(_ listing: ClassListing) -> Bool {
        if let status, listing.status != status { return false }
        if let type, listing.type != type { return false }
        if let keywordLocation, listing.keywordLocation != keywordLocation { return false }
        if let subjects, Set(subjects).isDisjoint(with: listing.subjects) { return false }
        if let targets, Set(targets).isDisjoint(with: listing.targets) { return false }
        if let days, Set(days).isDisjoint(with: listing.days) { return false }
        if !admitsPrice(listing.price) { return false }
        if let circle {
            guard let location = listing.location, Haversine.distance(circle.center, location) <= circle.radius else { return false }
        }
        if let box {
            guard let location = listing.location, box.contains(location) else { return false }
        }
        return true
    }

    /// Whether a listing of `price` (nil for none) lies within the price bounds: any does without bounds, and none
    /// without a price does with one.
    @inlinable
    public func admitsPrice(_ price: Int?) -> Bool {
        guard minPrice != nil || maxPrice != nil else { return true }
        guard let price else { return false }
        return (minPrice.map { price >= $0 } ?? true) && (maxPrice.map { price <= $0 } ?? true)
    }
}
