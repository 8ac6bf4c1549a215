import Foundation

/// A saved search: its owner is notified when a class is created or reopened that matches it.
///
/// The area is a circle; every other criterion is optional and they combine with AND. An empty list
/// (`subjects: []`) is no filter, like an absent one.
public struct Alert: Sendable, Hashable {
    /// The largest accepted radius, in meters.
    public static let maximumRadius = ClassSearch.maximumRadius
    /// Accepted radii, in meters.
    public static let radiusRange = 1.0...maximumRadius

    /// Opaque identifier.
    public let id: String
    /// The user who saved it and gets the notifications.
    public let userId: String
    /// The centre of the area.
    public let center: GeoPoint
    /// The radius of the area in meters.
    public let radius: Double
    /// Keyword text (`q`), matched against the class's name and description like a search.
    public let query: String?
    /// Buy or sell only.
    public let type: ClassType?
    /// Classes sharing at least one of these subjects.
    public let subjects: [Subject]?
    /// Classes sharing at least one of these targets.
    public let targets: [Target]?
    /// Classes sharing at least one of these days.
    public let days: [Weekday]?
    /// Classes with a price of at most this many KRW (classes without a price do not match).
    public let maxPrice: Int?
    /// When it was saved.
    public let createdAt: Date

    /// Creates an alert value.
    public init(
        id: String, userId: String, center: GeoPoint, radius: Double, query: String? = nil, type: ClassType? = nil,
        subjects: [Subject]? = nil, targets: [Target]? = nil, days: [Weekday]? = nil, maxPrice: Int? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.userId = userId
        self.center = center
        self.radius = radius
        self.query = query
        self.type = type
        self.subjects = subjects
        self.targets = targets
        self.days = days
        self.maxPrice = maxPrice
        self.createdAt = createdAt
    }

    /// Whether `listing` should notify the alert's owner — the brute-force definition that the cell index
    /// (``AlertCells``) narrows down to. All of these must hold:
    /// - the listing is `open` and was not written by the alert's owner;
    /// - it has a location at most ``radius`` meters (haversine) from ``center``;
    /// - it satisfies the keyword: ``query``, parsed by ``SearchTokenizer/query(_:)``, matches the name and
    ///   description joined by a newline (a query that does not parse matches nothing);
    /// - it has the alert's ``type``, shares a value with each non-empty list filter, and has a price of
    ///   at most ``maxPrice`` when that is set.
    public func matches(_ listing: ClassListing) -> Bool {
        guard listing.status == .open, listing.writerId != userId else { return false }
        guard let location = listing.location, Haversine.distance(center, location) <= radius else { return false }
        if let type, listing.type != type { return false }
        if !Alert.shares(subjects, listing.subjects) { return false }
        if !Alert.shares(targets, listing.targets) { return false }
        if !Alert.shares(days, listing.days) { return false }
        if let maxPrice {
            guard let price = listing.price, price <= maxPrice else { return false }
        }
        var keywords = KeywordFilter(listing: listing)
        return keywords.accepts(query)
    }

    /// Records an error for every invalid field of an alert request (field names as the API spells them):
    /// `lat` (-90...90), `lon` (-180...180) and `radius` (``radiusRange``) are required; `q`, when present,
    /// must hold something searchable in at most ``ClassSearch/maximumQueryLength`` characters; `maxPrice` must lie in ``ClassRules/priceRange``; the lists must not
    /// repeat a value.
    public static func check(
        lat: Double?, lon: Double?, radius: Double?, query: String?, maxPrice: Int?,
        subjects: [Subject]? = nil, targets: [Target]? = nil, days: [Weekday]? = nil,
        into validator: inout FieldValidator
    ) {
        if let lat {
            validator.check(lat.isFinite && (-90...90).contains(lat), "lat", "must be between -90 and 90")
        } else {
            validator.fail("lat", "is required")
        }
        if let lon {
            validator.check(lon.isFinite && (-180...180).contains(lon), "lon", "must be between -180 and 180")
        } else {
            validator.fail("lon", "is required")
        }
        if let radius {
            validator.check(radius.isFinite && radiusRange.contains(radius), "radius",
                            "must be between 1 and \(Int(maximumRadius)) meters")
        } else {
            validator.fail("radius", "is required")
        }
        if let query {
            if query.unicodeScalars.count > ClassSearch.maximumQueryLength {
                validator.fail("q", "must be at most \(ClassSearch.maximumQueryLength) characters")
            } else {
                validator.check(SearchTokenizer.query(query) != nil, "q", "must contain a word to search for")
            }
        }
        if let maxPrice {
            validator.check(ClassRules.priceRange.contains(maxPrice), "maxPrice", "must be between 0 and 100,000,000")
        }
        UserRules.checkNoDuplicates(subjects, "subjects", into: &validator)
        UserRules.checkNoDuplicates(targets, "targets", into: &validator)
        UserRules.checkNoDuplicates(days, "days", into: &validator)
    }

    /// Whether `values` is absent, empty, or shares at least one value with `listingValues`.
    private static func shares<Value: Hashable>(_ values: [Value]?, _ listingValues: [Value]) -> Bool {
        guard let values, !values.isEmpty else { return true }
        return !Set(values).isDisjoint(with: listingValues)
    }
}

extension Alert {
    /// Throws ``DomainError/forbidden(_:)`` unless `userId` is `ownerId`, the user who saved the alert.
    public static func checkOwner(_ ownerId: String, is userId: String) throws(DomainError) {
        guard ownerId == userId else { throw .forbidden("only the alert's owner may delete it") }
    }
}
