/// The client-writable fields of a listing. On create, absent fields take their defaults; on update, absent
/// fields stay as they are. A field that may be cleared (`time`, `place`, `location`, `keywordLocation`,
/// `price`) is doubly optional: `.some(nil)` clears it.
public struct ClassDraft: Sendable, Hashable {
    public var type: ClassType?
    public var name: String?
    public var description: String?
    public var days: [Weekday]?
    public var time: String??
    public var place: String??
    public var location: GeoPoint??
    public var keywordLocation: String??
    public var price: Int??
    public var priceUnit: PriceUnit?
    public var subjects: [Subject]?
    public var targets: [Target]?
    public var capacity: Int?
    public var imageIds: [String]?

    /// An empty draft.
    public init() {}

    /// Applies the draft's present fields to `listing`.
    public func apply(to listing: inout ClassListing) {
        if let type { listing.type = type }
        if let name { listing.name = name.trimmingWhitespace() }
        if let description { listing.description = description }
        if let days { listing.days = days }
        if let time { listing.time = time }
        if let place { listing.place = place }
        if let location { listing.location = location }
        if let keywordLocation { listing.keywordLocation = keywordLocation }
        if let price { listing.price = price }
        if let priceUnit { listing.priceUnit = priceUnit }
        if let subjects { listing.subjects = subjects }
        if let targets { listing.targets = targets }
        if let capacity { listing.capacity = capacity }
        if let imageIds { listing.imageIds = imageIds }
    }
}

/// The rules a listing's fields must satisfy, and who may change it.
public enum ClassRules {
    /// Throws ``DomainError/forbidden(_:)`` unless `userId` wrote `listing`: "only the writer may `action` this class".
    public static func checkWriter(of listing: ClassListing, is userId: String, to action: String) throws(DomainError) {
        guard listing.writerId == userId else { throw .forbidden("only the writer may \(action) this class") }
    }

    /// Accepted name lengths.
    public static let nameLength = 1...100
    /// Accepted description lengths.
    public static let descriptionLength = 0...5000
    /// Accepted place lengths.
    public static let placeLength = 0...200
    /// Accepted district name lengths.
    public static let keywordLocationLength = 0...100
    /// Accepted prices in KRW.
    public static let priceRange = 0...100_000_000
    /// Accepted seat counts.
    public static let capacityRange = 1...100
    /// The most images a listing may have.
    public static let maximumImages = 10

    /// Checks a draft; `creating` also requires the fields a new listing must have.
    public static func check(_ draft: ClassDraft, creating: Bool, into validator: inout FieldValidator) {
        if creating {
            validator.require(draft.type, "type")
            validator.require(draft.name, "name")
        }
        validator.checkLength(draft.name, "name", nameLength)
        validator.checkLength(draft.description, "description", descriptionLength)
        UserRules.checkNoDuplicates(draft.days, "days", into: &validator)
        UserRules.checkNoDuplicates(draft.subjects, "subjects", into: &validator)
        UserRules.checkNoDuplicates(draft.targets, "targets", into: &validator)
        if let time = draft.time ?? nil {
            validator.check(TimeRange(time) != nil, "time", "must be HH:MM-HH:MM with the start before the end")
        }
        validator.checkLength(draft.place ?? nil, "place", placeLength)
        validator.checkLength(draft.keywordLocation ?? nil, "keywordLocation", keywordLocationLength)
        if let location = draft.location ?? nil {
            validator.check(location.lat.isFinite && (-90...90).contains(location.lat), "location.lat", "must be between -90 and 90")
            validator.check(location.lon.isFinite && (-180...180).contains(location.lon), "location.lon", "must be between -180 and 180")
        }
        if let price = draft.price ?? nil {
            validator.check(priceRange.contains(price), "price", "must be between 0 and 100,000,000")
        }
        if let capacity = draft.capacity {
            validator.check(capacityRange.contains(capacity), "capacity", "must be between 1 and 100")
        }
        if let imageIds = draft.imageIds {
            validator.check(imageIds.count <= maximumImages, "imageIds", "must have at most \(maximumImages) images")
            UserRules.checkNoDuplicates(imageIds, "imageIds", into: &validator)
        }
    }
}

/// A daily time range `HH:MM-HH:MM` with the start before the end.
public struct TimeRange: Sendable, Hashable {
    /// Minutes after midnight when it starts.
    public let start: Int
    /// Minutes after midnight when it ends.
    public let end: Int

    /// Parses `19:00-21:00`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start < end else {
            return nil
        }
        self.start = start
        self.end = end
    }

    private static func minutes(_ text: Substring) -> Int? {
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let hours = Int(pieces[0]), let minutes = Int(pieces[1]),
              (0...24).contains(hours), (0...59).contains(minutes), hours * 60 + minutes <= 24 * 60
        else { return nil }
        return hours * 60 + minutes
    }
}
