import Foundation

/// Whether a listing offers a class (a teacher selling) or asks for one (a student buying).
public enum ClassType: String, Sendable, Codable, CaseIterable, Hashable {
    /// A student looking for a class; the writer is the buyer.
    case buy
    /// A teacher offering a class; the writer is the seller.
    case sell

    /// The type a counterpart listing has (recommendations pair buy with sell).
    public var opposite: ClassType { self == .buy ? .sell : .buy }
}

/// A day of the week, as the API spells it.
public enum Weekday: String, Sendable, Codable, CaseIterable, Hashable {
    case mon, tue, wed, thu, fri, sat, sun
}

/// What a price is counted per.
public enum PriceUnit: String, Sendable, Codable, CaseIterable, Hashable {
    case perHour, perProblem, perClass
}

/// Where a listing is in its life.
public enum ClassStatus: String, Sendable, Codable, CaseIterable, Hashable {
    /// Visible in default searches, accepting matches.
    case open
    /// Every seat is taken by an accepted match.
    case matched
    /// Closed by its writer.
    case closed
}

/// A class listing: a buy or sell post with its schedule, place, price and audience.
public struct ClassListing: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// Buy or sell.
    public var type: ClassType
    /// A short title.
    public var name: String
    /// Free text.
    public var description: String
    /// The days the class can take place.
    public var days: [Weekday]
    /// `HH:MM-HH:MM`, or nil when flexible.
    public var time: String?
    /// A road address or meeting place, as text.
    public var place: String?
    /// Where the class takes place, for geo search.
    public var location: GeoPoint?
    /// The district name (`관악구`), the old app's way of locating classes.
    public var keywordLocation: String?
    /// Price in KRW, or nil for "to be agreed".
    public var price: Int?
    /// What the price is counted per.
    public var priceUnit: PriceUnit
    /// What is taught.
    public var subjects: [Subject]
    /// Who it is for.
    public var targets: [Target]
    /// How many students can be matched.
    public var capacity: Int
    /// Open, matched or closed.
    public var status: ClassStatus
    /// Attached images, in display order.
    public var imageIds: [String]
    /// The user who wrote the listing.
    public let writerId: String
    /// How many users saved it as a favourite.
    public var favoriteCount: Int
    /// When it was created.
    public let createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// When an operator (or enough reports) hid it from everyone but its writer; nil while visible.
    public let hiddenAt: Date?

    /// Creates a listing value.
    public init(
        id: String, type: ClassType, name: String, description: String, days: [Weekday], time: String?, place: String?,
        location: GeoPoint?, keywordLocation: String?, price: Int?, priceUnit: PriceUnit, subjects: [Subject],
        targets: [Target], capacity: Int, status: ClassStatus, imageIds: [String], writerId: String,
        favoriteCount: Int, createdAt: Date, updatedAt: Date, hiddenAt: Date? = nil
    ) {
        self.id = id
        self.type = type
        self.name = name
        self.description = description
        self.days = days
        self.time = time
        self.place = place
        self.location = location
        self.keywordLocation = keywordLocation
        self.price = price
        self.priceUnit = priceUnit
        self.subjects = subjects
        self.targets = targets
        self.capacity = capacity
        self.status = status
        self.imageIds = imageIds
        self.writerId = writerId
        self.favoriteCount = favoriteCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.hiddenAt = hiddenAt
    }
}

/// The writer of a listing as shown next to it.
public struct WriterSummary: Sendable, Hashable {
    /// The writer's id.
    public let id: String
    /// The writer's nickname.
    public let nickname: String
    /// The writer's profile picture.
    public let profileImageId: String?
    /// The writer's rating.
    public let rating: Rating

    /// Creates a summary.
    public init(id: String, nickname: String, profileImageId: String?, rating: Rating) {
        self.id = id
        self.nickname = nickname
        self.profileImageId = profileImageId
        self.rating = rating
    }
}

/// A listing as one viewer sees it: with its writer and whether the viewer saved it.
public struct ClassView: Sendable, Hashable {
    /// The listing.
    public let listing: ClassListing
    /// Its writer.
    public let writer: WriterSummary
    /// Whether the viewer saved it (false for anonymous viewers).
    public let isFavorite: Bool
    /// Meters from the search centre, in geo searches only.
    public let distance: Double?

    /// Creates a view.
    public init(listing: ClassListing, writer: WriterSummary, isFavorite: Bool, distance: Double? = nil) {
        self.listing = listing
        self.writer = writer
        self.isFavorite = isFavorite
        self.distance = distance
    }
}
