import ClassTodayCore
import Foundation
import Hummingbird

/// A class object as the API shows it.
struct ClassResponse: ResponseCodable {
    let id: String
    let type: ClassType
    let name: String
    let description: String
    let days: [Weekday]
    @Nullable var time: String?
    @Nullable var place: String?
    @Nullable var location: GeoPoint?
    @Nullable var keywordLocation: String?
    @Nullable var price: Int?
    let priceUnit: PriceUnit
    let subjects: [Subject]
    let targets: [Target]
    let capacity: Int
    let status: ClassStatus
    let images: [ImageLink]
    let writer: WriterResponse
    let favoriteCount: Int
    let isFavorite: Bool
    /// Meters from a geo search's centre, to the decimetre; absent outside geo searches.
    let distance: Double?
    /// Whether an operator hid it (only its writer and operators see a hidden class).
    let hidden: Bool
    let createdAt: Date
    let updatedAt: Date

    /// A distance in metres as class objects show it: to the decimetre.
    static func shownDistance(_ metres: Double) -> Double {
        (metres * 10).rounded() / 10
    }

    /// `{id, url, variants}` of one of the class's images.
    struct ImageLink: Codable {
        let id: String
        let url: String
        let variants: ImageVariantLinks
    }

    init(view: ClassView) {
        let listing = view.listing
        (id, type, name, description, days) = (listing.id, listing.type, listing.name, listing.description, listing.days)
        (time, place, location, keywordLocation) = (listing.time, listing.place, listing.location, listing.keywordLocation)
        (price, priceUnit, subjects, targets) = (listing.price, listing.priceUnit, listing.subjects, listing.targets)
        (capacity, status, favoriteCount, isFavorite) = (listing.capacity, listing.status, listing.favoriteCount, view.isFavorite)
        images = listing.imageIds.map { ImageLink(id: $0, url: ImageURL.path(for: $0), variants: ImageVariantLinks(imageId: $0)) }
        writer = WriterResponse(view.writer)
        distance = view.distance.map(Self.shownDistance)
        (createdAt, updatedAt, hidden) = (listing.createdAt, listing.updatedAt, listing.hiddenAt != nil)
    }
}

/// A class object of a page, written by hand from the view (``JSONObjectWriter``): byte for byte what `APIJSONEncoder`
/// writes for the view's ``ClassResponse`` (keys sorted, `distance` left out when nil), without building it or paying
/// `JSONEncoder`'s cost, which was a fifth of a served search page's CPU time.
struct ClassPageItem: JSONTextRepresentable, Sendable {
    /// The listing as the viewer sees it.
    let view: ClassView

    func writeFields(to object: inout JSONObjectWriter) {
        let listing = view.listing
        object.add("capacity", listing.capacity)
        object.add("createdAt", listing.createdAt)
        object.add("days", rawValues: listing.days)
        object.add("description", listing.description)
        if let distance = view.distance { object.add("distance", ClassResponse.shownDistance(distance)) }
        object.add("favoriteCount", listing.favoriteCount)
        object.add("hidden", listing.hiddenAt != nil)
        object.add("id", listing.id)
        object.add("images", objects: listing.imageIds) { image, id in
            image.add("id", id)
            image.add("url", ImageURL.path(for: id))
            image.add("variants", object: ImageVariantLinks(imageId: id)) { $1.writeFields(to: &$0) }
        }
        object.add("isFavorite", view.isFavorite)
        object.add("keywordLocation", listing.keywordLocation)
        object.add("location", object: listing.location) { $1.writeFields(to: &$0) }
        object.add("name", listing.name)
        object.add("place", listing.place)
        object.add("price", listing.price)
        object.add("priceUnit", listing.priceUnit.rawValue)
        object.add("status", listing.status.rawValue)
        object.add("subjects", rawValues: listing.subjects)
        object.add("targets", rawValues: listing.targets)
        object.add("time", listing.time)
        object.add("type", listing.type.rawValue)
        object.add("updatedAt", listing.updatedAt)
        object.add("writer", object: view.writer) { $1.writeFields(to: &$0) }
    }

    /// Encodes the view's ``ClassResponse``: the same bytes, through `JSONEncoder`.
    func encode(to encoder: any Encoder) throws {
        try ClassResponse(view: view).encode(to: encoder)
    }
}

extension GeoPoint {
    /// Writes `{lat, lon}`.
    func writeFields(to object: inout JSONObjectWriter) {
        object.add("lat", lat)
        object.add("lon", lon)
    }
}

extension Rating {
    /// Writes `{average, count}`.
    func writeFields(to object: inout JSONObjectWriter) {
        object.add("average", average)
        object.add("count", count)
    }
}

/// A user as shown next to what they wrote: `{id, nickname, profileImageUrl, profileImageVariants, rating}` (writers,
/// room members).
struct WriterResponse: Codable {
    let id: String
    let nickname: String
    @Nullable var profileImageUrl: String?
    /// The profile picture's variants, null without a picture.
    @Nullable var profileImageVariants: ImageVariantLinks?
    let rating: Rating

    init(_ summary: WriterSummary) {
        (id, nickname, rating) = (summary.id, summary.nickname, summary.rating)
        profileImageUrl = summary.profileImageId.map(ImageURL.path(for:))
        profileImageVariants = summary.profileImageId.map(ImageVariantLinks.init(imageId:))
    }

}

extension WriterSummary {
    /// Writes the fields of its ``WriterResponse``, keys sorted.
    func writeFields(to object: inout JSONObjectWriter) {
        object.add("id", id)
        object.add("nickname", nickname)
        object.add("profileImageUrl", profileImageId.map(ImageURL.path(for:)))
        object.add("profileImageVariants", object: profileImageId.map(ImageVariantLinks.init(imageId:))) { $1.writeFields(to: &$0) }
        object.add("rating", object: rating) { $1.writeFields(to: &$0) }
    }
}

/// The body of `POST /v1/classes` and `PATCH /v1/classes/{id}`: only the writable fields are read, so that
/// `id`, `writer`, `status`, counts and dates sent by a client are ignored. Enum values arrive as strings, so
/// that an unknown value is a 422 naming its field rather than a 400.
struct ClassWriteRequest: Decodable {
    var type: String?
    var name: String?
    var description: String?
    var days: [String]?
    var time: PatchValue<String> = .absent
    var place: PatchValue<String> = .absent
    var location: PatchValue<LocationBody> = .absent
    var keywordLocation: PatchValue<String> = .absent
    var price: PatchValue<Int> = .absent
    var priceUnit: String?
    var subjects: [String]?
    var targets: [String]?
    var capacity: Int?
    var imageIds: [String]?

    /// `{lat, lon}` with both required.
    struct LocationBody: Decodable, Sendable {
        let lat: Double?
        let lon: Double?
    }

    private enum CodingKeys: String, CodingKey {
        case type, name, description, days, time, place, location, keywordLocation, price, priceUnit, subjects,
             targets, capacity, imageIds
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        days = try container.decodeIfPresent([String].self, forKey: .days)
        time = try PatchValue(container, .time)
        place = try PatchValue(container, .place)
        location = try PatchValue(container, .location)
        keywordLocation = try PatchValue(container, .keywordLocation)
        price = try PatchValue(container, .price)
        priceUnit = try container.decodeIfPresent(String.self, forKey: .priceUnit)
        subjects = try container.decodeIfPresent([String].self, forKey: .subjects)
        targets = try container.decodeIfPresent([String].self, forKey: .targets)
        capacity = try container.decodeIfPresent(Int.self, forKey: .capacity)
        imageIds = try container.decodeIfPresent([String].self, forKey: .imageIds)
    }

    /// The domain draft, with every unknown enum value or incomplete location recorded in `validator`.
    func draft(into validator: inout FieldValidator) -> ClassDraft {
        var draft = ClassDraft()
        draft.type = EnumField.value(type, "type", &validator)
        draft.name = name
        draft.description = description
        draft.days = EnumField.list(days, "days", &validator)
        draft.time = time.optional
        draft.place = place.optional
        draft.keywordLocation = keywordLocation.optional
        draft.price = price.optional
        draft.priceUnit = EnumField.value(priceUnit, "priceUnit", &validator)
        draft.subjects = EnumField.list(subjects, "subjects", &validator)
        draft.targets = EnumField.list(targets, "targets", &validator)
        draft.capacity = capacity
        draft.imageIds = imageIds
        switch location {
        case .absent: break
        case .null: draft.location = .some(nil)
        case .value(let body):
            validator.require(body.lat, "location.lat")
            validator.require(body.lon, "location.lon")
            if let lat = body.lat, let lon = body.lon { draft.location = .some(GeoPoint(lat: lat, lon: lon)) }
        }
        return draft
    }
}

extension PatchValue {
    /// The value as a double optional: nil when absent, `.some(nil)` when null.
    var optional: Value?? {
        switch self {
        case .absent: nil
        case .null: .some(nil)
        case .value(let value): .some(value)
        }
    }
}

/// Turns strings into enum cases, recording a validation error that lists the allowed values.
enum EnumField {
    /// The case named by `raw`, if any.
    static func value<Value: RawRepresentable<String> & CaseIterable>(_ raw: String?, _ field: String, _ validator: inout FieldValidator) -> Value? {
        guard let raw else { return nil }
        guard let value = Value(rawValue: raw) else {
            validator.fail(field, "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return value
    }

    /// The cases named by `raw`, if every one names a case.
    static func list<Value: RawRepresentable<String> & CaseIterable>(_ raw: [String]?, _ field: String, _ validator: inout FieldValidator) -> [Value]? {
        guard let raw else { return nil }
        let values = raw.compactMap(Value.init(rawValue:))
        guard values.count == raw.count else {
            validator.fail(field, "values must be among \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return values
    }
}

/// The body of `PUT /v1/classes/{id}/status`.
struct StatusRequest: Decodable {
    let status: String?
}

/// `GET /v1/categories`: subjects and targets with their Korean names.
struct CategoriesResponse: ResponseEncodable {
    struct Category: Encodable {
        let id: String
        let name: String
    }

    let subjects = Subject.allCases.map { Category(id: $0.rawValue, name: $0.displayName) }
    let targets = Target.allCases.map { Category(id: $0.rawValue, name: $0.displayName) }
}
