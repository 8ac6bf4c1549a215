import Foundation

/// Where a match is in its life.
///
/// A match starts `proposed`. The member who did not propose accepts or declines it; either member
/// cancels it while it is proposed or accepted; either member completes it once accepted. `declined`,
/// `cancelled` and `completed` are final. See ``Match/transition(_:by:from:proposedBy:sellerId:buyerId:)``.
public enum MatchStatus: String, Sendable, Codable, CaseIterable, Hashable {
    /// Offered by one member, waiting for the other.
    case proposed
    /// Agreed by both members; holds one of the class's seats.
    case accepted
    /// Refused by the member who was asked. Final.
    case declined
    /// Called off by either member, before or after it was accepted. Final.
    case cancelled
    /// The class took place; the members may review each other. Final.
    case completed

    /// Whether no action can change the status any more.
    public var isFinal: Bool {
        switch self {
        case .proposed, .accepted: false
        case .declined, .cancelled, .completed: true
        }
    }

    /// Whether a match in this status occupies one of the class's seats: `accepted` and `completed`
    /// matches do (a completed class keeps its student), every other status does not.
    ///
    /// The number of seats taken on a class is the number of its matches whose status fills a seat.
    public var fillsSeat: Bool {
        self == .accepted || self == .completed
    }
}

/// Who a member is in a match.
public enum MatchRole: String, Sendable, Codable, CaseIterable, Hashable {
    /// The member who teaches.
    case seller
    /// The member who learns.
    case buyer
}

/// The conditions a match is proposed with. Every field is optional; an absent field means "as in the
/// class" (see ``defaulted(from:)``).
public struct MatchTerms: Sendable, Hashable {
    /// The days the class will take place.
    public var days: [Weekday]?
    /// `HH:MM-HH:MM` (see ``TimeRange``).
    public var time: String?
    /// A road address or meeting place, as text.
    public var place: String?
    /// Where the class will take place.
    public var location: GeoPoint?
    /// The agreed price in KRW.
    public var price: Int?
    /// What ``price`` is counted per.
    public var priceUnit: PriceUnit?

    /// Creates terms; every field defaults to absent.
    public init(
        days: [Weekday]? = nil, time: String? = nil, place: String? = nil, location: GeoPoint? = nil,
        price: Int? = nil, priceUnit: PriceUnit? = nil
    ) {
        self.days = days
        self.time = time
        self.place = place
        self.location = location
        self.price = price
        self.priceUnit = priceUnit
    }

    /// Terms with no field set.
    public static let unspecified = MatchTerms()

    /// These terms with every absent field taken from `listing` (fields the listing lacks stay absent).
    public func defaulted(from listing: ClassListing) -> MatchTerms {
        MatchTerms(
            days: days ?? listing.days,
            time: time ?? listing.time,
            place: place ?? listing.place,
            location: location ?? listing.location,
            price: price ?? listing.price,
            priceUnit: priceUnit ?? listing.priceUnit
        )
    }

    /// Records an error for every present field that breaks the listing rules: `days` without duplicates,
    /// `time` a valid ``TimeRange``, `place` within ``ClassRules/placeLength``, `location.lat` in -90...90,
    /// `location.lon` in -180...180, `price` within ``ClassRules/priceRange``.
    public func check(into validator: inout FieldValidator) {
        UserRules.checkNoDuplicates(days, "days", into: &validator)
        if let time {
            validator.check(TimeRange(time) != nil, "time", "must be HH:MM-HH:MM with the start before the end")
        }
        validator.checkLength(place, "place", ClassRules.placeLength)
        if let location {
            validator.check(location.lat.isFinite && (-90...90).contains(location.lat), "location.lat",
                            "must be between -90 and 90")
            validator.check(location.lon.isFinite && (-180...180).contains(location.lon), "location.lon",
                            "must be between -180 and 180")
        }
        if let price {
            validator.check(ClassRules.priceRange.contains(price), "price", "must be between 0 and 100,000,000")
        }
    }
}

/// An agreement, proposed in a chat room, that the room's buyer takes the room's class from its seller.
public struct Match: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// The chat room it was proposed in.
    public let roomId: String
    /// The class it is about.
    public let classId: String
    /// The member who teaches.
    public let sellerId: String
    /// The member who learns.
    public let buyerId: String
    /// Where the match is in its life.
    public var status: MatchStatus
    /// The member who proposed it; the other member accepts or declines.
    public let proposedBy: String
    /// The conditions it was proposed with.
    public var terms: MatchTerms
    /// When it was proposed.
    public let createdAt: Date
    /// When its status last changed.
    public var updatedAt: Date

    /// Creates a match value.
    public init(
        id: String, roomId: String, classId: String, sellerId: String, buyerId: String, status: MatchStatus,
        proposedBy: String, terms: MatchTerms, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.roomId = roomId
        self.classId = classId
        self.sellerId = sellerId
        self.buyerId = buyerId
        self.status = status
        self.proposedBy = proposedBy
        self.terms = terms
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// A new `proposed` match by `proposerId`, who must be the seller or the buyer.
    ///
    /// - Throws: ``DomainError/forbidden(_:)`` when `proposerId` is neither member.
    public static func propose(
        id: String, roomId: String, classId: String, sellerId: String, buyerId: String, by proposerId: String,
        terms: MatchTerms, at date: Date
    ) throws(DomainError) -> Match {
        try checkProposer(proposerId, sellerId: sellerId, buyerId: buyerId)
        return Match(
            id: id, roomId: roomId, classId: classId, sellerId: sellerId, buyerId: buyerId, status: .proposed,
            proposedBy: proposerId, terms: terms, createdAt: date, updatedAt: date
        )
    }

    /// A new `proposed` match by `proposerId` in `room`, about the room's class `listing` (nil when it is gone), with
    /// the absent fields of `terms` taken from the listing.
    ///
    /// - Throws: in this order, ``DomainError/forbidden(_:)`` when `proposerId` is neither member (the check of
    ///   ``propose(id:roomId:classId:sellerId:buyerId:by:terms:at:)``), ``DomainError/notFound(_:)`` without a
    ///   listing, ``DomainError/conflict(_:)`` unless the listing is open (``checkCanPropose(listingStatus:)``).
    public static func propose(
        id: String, in room: ChatRoom, listing: ClassListing?, by proposerId: String, terms: MatchTerms, at date: Date
    ) throws(DomainError) -> Match {
        var match = try propose(id: id, roomId: room.id, classId: room.classId, sellerId: room.sellerId, buyerId: room.buyerId,
                                by: proposerId, terms: terms, at: date)
        guard let listing else { throw .notFound("class") }
        try checkCanPropose(listingStatus: listing.status)
        match.terms = terms.defaulted(from: listing)
        return match
    }

    /// Throws ``DomainError/forbidden(_:)`` unless `proposerId` is the seller or the buyer of the room: the first check
    /// of ``propose(id:roomId:classId:sellerId:buyerId:by:terms:at:)``.
    public static func checkProposer(_ proposerId: String, sellerId: String, buyerId: String) throws(DomainError) {
        guard proposerId == sellerId || proposerId == buyerId else {
            throw .forbidden("only a member of the chat room can propose a match")
        }
    }

    /// The member `reviewerId` reviews: the other member of a completed match.
    ///
    /// - Throws: ``DomainError/forbidden(_:)`` for anyone but a member, ``DomainError/conflict(_:)`` before completion.
    public func reviewee(of reviewerId: String) throws(DomainError) -> String {
        guard let reviewee = counterpart(of: reviewerId) else { throw .forbidden("only the match's members may review it") }
        guard status == .completed else { throw .conflict("a match can be reviewed once it is completed") }
        return reviewee
    }

    /// The two members, seller first.
    public var memberIds: [String] { [sellerId, buyerId] }

    /// Whether `userId` is the seller or the buyer.
    public func isMember(_ userId: String) -> Bool {
        userId == sellerId || userId == buyerId
    }

    /// The other member for a member, nil for anyone else.
    public func counterpart(of userId: String) -> String? {
        if userId == sellerId { return buyerId }
        if userId == buyerId { return sellerId }
        return nil
    }

    /// Whether `userId` is the seller or the buyer, nil for anyone else.
    public func role(of userId: String) -> MatchRole? {
        if userId == sellerId { return .seller }
        if userId == buyerId { return .buyer }
        return nil
    }
}
