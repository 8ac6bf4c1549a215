import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// The full user, as its owner sees it.
struct UserResponse: ResponseEncodable {
    let user: User

    private enum CodingKeys: String, CodingKey {
        case id, email, nickname, description, company, subjects, profileImageUrl, location, keywordLocation,
             detailLocation, rating, createdAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user.id, forKey: .id)
        try container.encode(user.email, forKey: .email)
        try container.encode(user.nickname, forKey: .nickname)
        try container.encode(user.description, forKey: .description)
        try container.encode(user.company, forKey: .company)
        try container.encode(user.subjects, forKey: .subjects)
        try container.encode(user.profileImageId.map(ImageURL.path(for:)), forKey: .profileImageUrl)
        try container.encode(user.location, forKey: .location)
        try container.encode(user.keywordLocation, forKey: .keywordLocation)
        try container.encode(user.detailLocation, forKey: .detailLocation)
        try container.encode(user.rating, forKey: .rating)
        try container.encode(user.createdAt, forKey: .createdAt)
    }
}

/// A user as anyone may see them: never the email, never the location.
struct PublicProfileResponse: ResponseEncodable {
    let user: User

    private enum CodingKeys: String, CodingKey {
        case id, nickname, description, company, subjects, profileImageUrl, rating
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user.id, forKey: .id)
        try container.encode(user.nickname, forKey: .nickname)
        try container.encode(user.description, forKey: .description)
        try container.encode(user.company, forKey: .company)
        try container.encode(user.subjects, forKey: .subjects)
        try container.encode(user.profileImageId.map(ImageURL.path(for:)), forKey: .profileImageUrl)
        try container.encode(user.rating, forKey: .rating)
    }
}

/// `{token, user}`, the answer to signup and login.
struct SessionResponse: ResponseEncodable {
    let token: String
    let user: UserResponse
}

/// The body of `POST /v1/auth/signup`.
struct SignupRequest: Decodable {
    let email: String?
    let password: String?
    let nickname: String?
}

/// The body of `POST /v1/auth/login`.
struct LoginRequest: Decodable {
    let email: String?
    let password: String?
}

/// The body of `PATCH /v1/me`: absent fields stay as they are; `profileImageId: null` removes the picture.
struct ProfilePatchRequest: Decodable {
    var nickname: String?
    var description: String?
    var company: String?
    var subjects: [String]?
    var profileImageId: PatchValue<String> = .absent

    private enum CodingKeys: String, CodingKey {
        case nickname, description, company, subjects, profileImageId
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        company = try container.decodeIfPresent(String.self, forKey: .company)
        subjects = try container.decodeIfPresent([String].self, forKey: .subjects)
        profileImageId = try PatchValue(container, .profileImageId)
    }
}

/// The body of `PUT /v1/me/location`.
struct LocationRequest: Decodable {
    let lat: Double?
    let lon: Double?
    let keywordLocation: String?
    let detailLocation: String?
}

/// A PATCH field that distinguishes "not sent" from "sent as null" from "sent with a value".
enum PatchValue<Value: Decodable & Sendable>: Sendable {
    /// The field was not in the body: leave it.
    case absent
    /// The field was `null`: clear it.
    case null
    /// The field has a new value.
    case value(Value)

    /// Reads `key` from `container`.
    init<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws {
        if !container.contains(key) {
            self = .absent
        } else if try container.decodeNil(forKey: key) {
            self = .null
        } else {
            self = .value(try container.decode(Value.self, forKey: key))
        }
    }
}

/// Where images are served.
enum ImageURL {
    /// The URL path of an image, relative to the server's base URL.
    static func path(for imageId: String) -> String {
        "/v1/images/\(imageId)"
    }
}
