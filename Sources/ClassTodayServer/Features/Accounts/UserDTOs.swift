import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// The full user, as its owner sees it.
struct UserResponse: ResponseEncodable {
    let id: String
    let email: String
    let nickname: String
    @Nullable var description: String?
    @Nullable var company: String?
    let subjects: [Subject]
    @Nullable var profileImageUrl: String?
    /// The profile picture's variants, null without a picture.
    @Nullable var profileImageVariants: ImageVariantLinks?
    @Nullable var location: GeoPoint?
    @Nullable var keywordLocation: String?
    @Nullable var detailLocation: String?
    let rating: Rating
    /// The terms version the user accepted last; null for accounts from before terms were recorded.
    @Nullable var termsAccepted: String?
    /// Whether ``termsAccepted`` is the current version; false means the app should ask the user to accept again.
    let termsUpToDate: Bool
    /// The warnings operators gave the user: `{count, lastReason, lastAt}`.
    let warnings: WarningsResponse
    let createdAt: Date
    /// Whether the user followed a link mailed to ``email`` (or a sign-in provider vouched for it).
    let emailVerified: Bool
    /// The language of the user's mails: `ko` or `en`.
    let locale: UserLocale

    /// `{count, lastReason, lastAt}`: how many warnings, and the latest one's reason and time (null without any).
    struct WarningsResponse: Encodable {
        let count: Int
        @Nullable var lastReason: String?
        @Nullable var lastAt: Date?
    }

    init(user: User, currentTermsVersion: String) {
        (id, email, nickname, description, company) = (user.id, user.email, user.nickname, user.description, user.company)
        (subjects, profileImageUrl) = (user.subjects, user.profileImageId.map(ImageURL.path(for:)))
        profileImageVariants = user.profileImageId.map(ImageVariantLinks.init(imageId:))
        (location, keywordLocation, detailLocation) = (user.location, user.keywordLocation, user.detailLocation)
        (termsAccepted, termsUpToDate) = (user.termsVersion, user.termsVersion == currentTermsVersion)
        (rating, createdAt) = (user.rating, user.createdAt)
        warnings = WarningsResponse(count: user.warnings.count, lastReason: user.warnings.lastReason, lastAt: user.warnings.lastAt)
        (emailVerified, locale) = (user.emailVerified, user.locale)
    }
}

/// A user as anyone may see them: never the email, never the location.
struct PublicProfileResponse: ResponseEncodable {
    let id: String
    let nickname: String
    @Nullable var description: String?
    @Nullable var company: String?
    let subjects: [Subject]
    @Nullable var profileImageUrl: String?
    /// The profile picture's variants, null without a picture.
    @Nullable var profileImageVariants: ImageVariantLinks?
    let rating: Rating

    init(user: User) {
        (id, nickname, description, company) = (user.id, user.nickname, user.description, user.company)
        (subjects, profileImageUrl, rating) = (user.subjects, user.profileImageId.map(ImageURL.path(for:)), user.rating)
        profileImageVariants = user.profileImageId.map(ImageVariantLinks.init(imageId:))
    }
}

/// `{token, refreshToken, expiresIn, user}`, the answer to signup, login and refresh; a provider sign-in adds
/// `created` (whether the sign-in created the account).
struct SessionResponse: ResponseEncodable {
    let token: String
    let refreshToken: String
    /// Seconds until `token` expires; renew it with `refreshToken` at `POST /v1/auth/refresh`.
    let expiresIn: Int
    let user: UserResponse
    /// Provider sign-ins only: whether this sign-in created the account.
    let created: Bool?

    init(_ tokens: SessionIssuer.Tokens, user: UserResponse, created: Bool? = nil) {
        (token, refreshToken, expiresIn) = (tokens.token, tokens.refreshToken, tokens.expiresIn)
        (self.user, self.created) = (user, created)
    }
}

/// The body of `POST /v1/auth/refresh`.
struct RefreshRequest: Decodable {
    let refreshToken: String?
}

/// The body of `POST /v1/auth/signup`. `termsVersion`, when sent, must be the current version.
struct SignupRequest: Decodable {
    let email: String?
    let password: String?
    let nickname: String?
    let termsVersion: String?
    /// `ko` or `en`: the language of the account's mails; without it, the request's `Accept-Language` decides (null is
    /// refused: the field is a string when sent).
    let locale: PatchValue<String>

    private enum CodingKeys: String, CodingKey {
        case email, password, nickname, termsVersion, locale
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        password = try container.decodeIfPresent(String.self, forKey: .password)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        termsVersion = try container.decodeIfPresent(String.self, forKey: .termsVersion)
        locale = try PatchValue(container, .locale)
    }
}

/// The body of `DELETE /v1/me`: the password again, for an account that has one.
struct AccountDeletionRequest: Decodable {
    let password: String?
}

/// The body of `POST /v1/auth/login`.
struct LoginRequest: Decodable {
    let email: String?
    let password: String?
}

/// The body of `PATCH /v1/me`: absent fields stay as they are; `profileImageId: null` removes the picture;
/// `termsVersion` (the current version only) records that the user accepted the current terms.
struct ProfilePatchRequest: Decodable {
    var nickname: String?
    var description: String?
    var company: String?
    var subjects: [String]?
    var profileImageId: PatchValue<String> = .absent
    var termsVersion: String?
    /// `ko` or `en` (null is refused).
    var locale: PatchValue<String> = .absent

    private enum CodingKeys: String, CodingKey {
        case nickname, description, company, subjects, profileImageId, termsVersion, locale
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        company = try container.decodeIfPresent(String.self, forKey: .company)
        subjects = try container.decodeIfPresent([String].self, forKey: .subjects)
        profileImageId = try PatchValue(container, .profileImageId)
        termsVersion = try container.decodeIfPresent(String.self, forKey: .termsVersion)
        locale = try PatchValue(container, .locale)
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

    /// The URL path of a variant of an image.
    static func path(for imageId: String, variant: ImageVariant) -> String {
        "/v1/images/\(imageId)/\(variant.rawValue)"
    }
}

/// `{thumb, card, full}`: the URL paths of an image's variants, which every client decodes (WebP or JPEG by `Accept`).
struct ImageVariantLinks: Codable, Equatable {
    /// The path of the variant that fits 320 x 320.
    let thumb: String
    /// The path of the variant that fits 800 x 800.
    let card: String
    /// The path of the variant that fits 2048 x 2048.
    let full: String

    /// The links of the image `imageId`.
    init(imageId: String) {
        thumb = ImageURL.path(for: imageId, variant: .thumb)
        card = ImageURL.path(for: imageId, variant: .card)
        full = ImageURL.path(for: imageId, variant: .full)
    }

    /// Writes the object's fields with ``JSONObjectWriter``: the bytes `APIJSONEncoder` writes (keys sorted).
    func writeFields(to object: inout JSONObjectWriter) {
        object.add("card", card)
        object.add("full", full)
        object.add("thumb", thumb)
    }
}
