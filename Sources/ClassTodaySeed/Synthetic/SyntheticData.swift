import ClassTodayCore
/// A deterministic generator of realistic users and class listings for demos, seeding and load tests.
///
/// Every value depends only on the seed and on the order of calls, so the same seed reproduces the same
/// dataset on every run and platform (locations use `log`/`cos`/`sin`, whose last bit may differ between
/// C libraries). Text is Korean with English words for language and computer classes; listings cluster
/// around ``KoreanCities/all`` in proportion to population, with a uniform background over South Korea.
///
/// ```swift
/// var data = SyntheticData(seed: 42)
/// let users = (0..<1_000).map { data.user(index: $0) }
/// let draft = data.classDraft(by: users[data.writerIndex(among: users.count)])
/// ```
public struct SyntheticData: Sendable {
    /// South Korea's bounding box, latitude.
    public static let latitudeRange = 33.1...38.6
    /// South Korea's bounding box, longitude.
    public static let longitudeRange = 124.6...131.9
    /// The domain of generated emails.
    public static let emailDomain = "seed.classtoday.app"

    /// The seed everything is derived from.
    public let seed: UInt64
    /// The share of listing locations placed near a city; the rest are uniform over the bounding box.
    public let clusteredShare: Double
    /// The random stream that listings and locations draw from.
    var generator: Generator

    /// A generator for `seed`; `clusteredShare` (clamped to 0...1) of listing locations are near cities.
    public init(seed: UInt64, clusteredShare: Double = 0.85) {
        self.seed = seed
        self.clusteredShare = min(1, max(0, clusteredShare))
        self.generator = Generator(seed: seed)
    }

    /// Picks the writer of the next listing among `count` users (`0..<count`), favouring low indexes so that
    /// some users write many listings and most write few; `count` must be positive.
    public mutating func writerIndex(among count: Int) -> Int {
        precondition(count > 0, "writerIndex(among:) needs at least one user")
        let skewed = generator.unit() * generator.unit()
        return min(count - 1, Int(skewed * Double(count)))
    }
}

extension SyntheticData: RandomNumberGenerator {
    /// The next 64 bits of the listing stream, for deterministic ids (`Identifier.make(at:using:)`) and
    /// other choices a caller makes while seeding.
    public mutating func next() -> UInt64 {
        generator.next()
    }
}

/// A generated user: what a sign-up and a profile edit would send.
public struct SyntheticUser: Sendable, Hashable {
    /// The index the user was generated for.
    public var index: Int
    /// A unique email, `user<index>@seed.classtoday.app`.
    public var email: String
    /// A Korean nickname (not necessarily unique).
    public var nickname: String
    /// A short Korean introduction.
    public var description: String
    /// One to three distinct subjects the user teaches or wants to learn.
    public var subjects: [Subject]
    /// The user's home, near a city.
    public var location: GeoPoint
    /// The name of the city the home is near (`서울`).
    public var city: String
    /// The district the home is in (`관악구`).
    public var keywordLocation: String
    /// A road address near the home.
    public var detailLocation: String

    /// Creates a user value.
    public init(
        index: Int, email: String, nickname: String, description: String, subjects: [Subject], location: GeoPoint,
        city: String, keywordLocation: String, detailLocation: String
    ) {
        self.index = index
        self.email = email
        self.nickname = nickname
        self.description = description
        self.subjects = subjects
        self.location = location
        self.city = city
        self.keywordLocation = keywordLocation
        self.detailLocation = detailLocation
    }
}
