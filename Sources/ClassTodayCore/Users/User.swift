import Foundation

/// A user's rating as others gave it in reviews.
public struct Rating: Sendable, Hashable, Codable {
    /// The mean grade, 0 when there are no reviews.
    public var average: Double
    /// How many reviews the average is built from.
    public var count: Int

    /// Creates a rating.
    public init(average: Double, count: Int) {
        self.average = average
        self.count = count
    }

    /// The rating of a user nobody has reviewed yet.
    public static let none = Rating(average: 0, count: 0)
}

/// A registered user, as the domain sees it (never the password hash).
public struct User: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// The email as the user typed it at signup; compared case-insensitively.
    public var email: String
    /// The public display name.
    public var nickname: String
    /// A free-text introduction.
    public var description: String
    /// School, company or other affiliation.
    public var company: String
    /// Subjects the user teaches or wants to learn.
    public var subjects: [Subject]
    /// The uploaded image used as the profile picture.
    public var profileImageId: String?
    /// Where the user is, for "near me" defaults. Private to the user.
    public var location: GeoPoint?
    /// The district name the user chose (`관악구`).
    public var keywordLocation: String?
    /// A more precise address text.
    public var detailLocation: String?
    /// Reviews summary.
    public var rating: Rating
    /// The version of the terms of service the user accepted last; nil for accounts from before terms were recorded.
    public var termsVersion: String?
    /// When the user accepted ``termsVersion``.
    public var termsAcceptedAt: Date?
    /// When the account was created.
    public let createdAt: Date
    /// The warnings operators gave the user.
    public var warnings: UserWarnings
    /// Whether the user showed that the address is theirs (followed a link mailed to it, or a provider vouched for it).
    public var emailVerified: Bool
    /// The language the user reads the service's mails in.
    public var locale: UserLocale

    /// Creates a user value.
    public init(
        id: String, email: String, nickname: String, description: String = "", company: String = "",
        subjects: [Subject] = [], profileImageId: String? = nil, location: GeoPoint? = nil,
        keywordLocation: String? = nil, detailLocation: String? = nil, rating: Rating = .none,
        termsVersion: String? = nil, termsAcceptedAt: Date? = nil, createdAt: Date, warnings: UserWarnings = .none,
        emailVerified: Bool = false, locale: UserLocale = .default
    ) {
        self.id = id
        self.email = email
        self.nickname = nickname
        self.description = description
        self.company = company
        self.subjects = subjects
        self.profileImageId = profileImageId
        self.location = location
        self.keywordLocation = keywordLocation
        self.detailLocation = detailLocation
        self.rating = rating
        self.termsVersion = termsVersion
        self.termsAcceptedAt = termsAcceptedAt
        self.createdAt = createdAt
        self.warnings = warnings
        self.emailVerified = emailVerified
        self.locale = locale
    }
}

/// What the store needs to check a login: the user's id and bcrypt hash.
public struct UserCredentials: Sendable, Hashable {
    /// The user's id.
    public let userId: String
    /// The bcrypt hash of the password.
    public let passwordHash: String

    /// Creates credentials.
    public init(userId: String, passwordHash: String) {
        self.userId = userId
        self.passwordHash = passwordHash
    }
}

/// The stored form of the tokens handed out at a sign-in or a refresh: a bearer (access) token and the refresh token
/// that renews it. Only the SHA-256 of each token is kept.
public struct SessionGrant: Sendable, Hashable {
    /// Hex SHA-256 of the bearer token.
    public let accessTokenHash: String
    /// Hex SHA-256 of the refresh token.
    public let refreshTokenHash: String
    /// When the tokens were issued.
    public let issuedAt: Date
    /// After this instant the bearer token no longer works.
    public let accessExpiresAt: Date
    /// After this instant the refresh token no longer works.
    public let refreshExpiresAt: Date

    /// Creates a grant.
    public init(accessTokenHash: String, refreshTokenHash: String, issuedAt: Date, accessExpiresAt: Date, refreshExpiresAt: Date) {
        self.accessTokenHash = accessTokenHash
        self.refreshTokenHash = refreshTokenHash
        self.issuedAt = issuedAt
        self.accessExpiresAt = accessExpiresAt
        self.refreshExpiresAt = refreshExpiresAt
    }
}

/// What a refresh did.
public enum RefreshOutcome: Sendable, Hashable {
    /// The refresh token was used up and the grant recorded for this user.
    case rotated(userId: String)
    /// The refresh token had been used before: its whole family, the sign-in `sessionId` of `userId`, is revoked.
    case reused(userId: String, sessionId: String)
    /// No unexpired refresh token has this hash.
    case invalid
}
