import ClassTodayCore
import Configuration
import Foundation

/// Where an OpenID Connect provider publishes its signing keys, and what its ID tokens must say to be accepted.
public struct OpenIDProviderSettings: Sendable, Equatable {
    /// The app's client ids at the provider: an ID token's `aud` must name one. Empty leaves the provider off.
    public var clientIds: [String] = []
    /// The accepted values of `iss`.
    public var issuers: [String]
    /// The provider's JSON Web Key Set (HTTPS; plain HTTP only on loopback, for tests).
    public var jwksURL: String

    /// Creates the settings of a provider, not configured until it has client ids.
    public init(issuers: [String], jwksURL: String, clientIds: [String] = []) {
        self.issuers = issuers
        self.jwksURL = jwksURL
        self.clientIds = clientIds
    }

    /// Whether the provider is on: it has client ids.
    public var isConfigured: Bool { !clientIds.isEmpty }
}

/// Naver Login: Naver issues no ID token, so the app's access token is checked by reading Naver's profile API.
public struct NaverSettings: Sendable, Equatable {
    /// Whether Naver sign-in is on.
    public var enabled = false
    /// The profile API (HTTPS; plain HTTP only on loopback, for tests).
    public var profileURL = "https://openapi.naver.com/v1/nid/me"

    /// Naver sign-in, off.
    public init() {}
}

/// The sign-in providers: real endpoints by default, each off until configured.
public struct SignInSettings: Sendable, Equatable {
    /// Sign in with Apple.
    public var apple = OpenIDProviderSettings(issuers: ["https://appleid.apple.com"], jwksURL: "https://appleid.apple.com/auth/keys")
    /// Kakao Login (OpenID Connect enabled in the Kakao app settings).
    public var kakao = OpenIDProviderSettings(issuers: ["https://kauth.kakao.com"], jwksURL: "https://kauth.kakao.com/.well-known/jwks.json")
    /// Google Sign-In.
    public var google = OpenIDProviderSettings(
        issuers: ["https://accounts.google.com", "accounts.google.com"], jwksURL: "https://www.googleapis.com/oauth2/v3/certs")
    /// Naver Login.
    public var naver = NaverSettings()
    /// How far `exp` and `iat` may be off the server's clock.
    public var clockSkew: Duration = .seconds(60)
    /// How long a request to a provider may take before the sign-in answers 503.
    public var requestTimeout: Duration = .seconds(5)
    /// How long at least between two fetches of a provider's keys when a token names a key the server does not know.
    public var keyRefetchInterval: Duration = .seconds(60)
    /// How long after a failed fetch of a provider's keys the next may be made; doubled for each failure in a row, up
    /// to ``keyRefetchInterval``.
    public var keyRetryDelay: Duration = .seconds(1)

    /// Every provider off, with the real providers' endpoints.
    public init() {}

    /// The settings of an OpenID Connect provider; nil for Naver.
    public func openID(_ provider: IdentityProvider) -> OpenIDProviderSettings? {
        switch provider {
        case .apple: apple
        case .kakao: kakao
        case .google: google
        case .naver: nil
        }
    }

    /// Reads `signIn.*` from `reader`: `signIn.<provider>.clientIds`, `.issuers` (comma-separated in the environment),
    /// `.jwksUrl` for apple, kakao and google; `signIn.naver.enabled` and `.profileUrl`; `signIn.clockSkewSeconds`,
    /// `signIn.timeoutSeconds`, `signIn.keyRefetchSeconds` and `signIn.keyRetrySeconds`.
    init(reader: ConfigReader) {
        func openID(_ name: String, _ defaults: OpenIDProviderSettings) -> OpenIDProviderSettings {
            OpenIDProviderSettings(
                issuers: reader.stringArray(forKey: ConfigKey(["signIn", name, "issuers"]), default: defaults.issuers),
                jwksURL: reader.string(forKey: ConfigKey(["signIn", name, "jwksUrl"]), default: defaults.jwksURL),
                clientIds: reader.stringArray(forKey: ConfigKey(["signIn", name, "clientIds"]), default: []).filter { !$0.isEmpty })
        }
        apple = openID("apple", apple)
        kakao = openID("kakao", kakao)
        google = openID("google", google)
        naver.enabled = reader.bool(forKey: "signIn.naver.enabled", default: naver.enabled)
        naver.profileURL = reader.string(forKey: "signIn.naver.profileUrl", default: naver.profileURL)
        clockSkew = .seconds(reader.int(forKey: "signIn.clockSkewSeconds", default: 60))
        requestTimeout = .seconds(reader.int(forKey: "signIn.timeoutSeconds", default: 5))
        keyRefetchInterval = .seconds(reader.int(forKey: "signIn.keyRefetchSeconds", default: 60))
        keyRetryDelay = .seconds(reader.int(forKey: "signIn.keyRetrySeconds", default: 1))
    }

    /// Checks the values; throws a ``ConfigurationError`` naming the key.
    func validate() throws {
        for provider in [IdentityProvider.apple, .kakao, .google] {
            guard let settings = openID(provider), settings.isConfigured else { continue }
            try Self.checkEndpoint(settings.jwksURL, key: "signIn.\(provider.rawValue).jwksUrl")
            guard !settings.issuers.isEmpty else {
                throw ConfigurationError.invalid(key: "signIn.\(provider.rawValue).issuers", reason: "must name at least one issuer")
            }
        }
        if naver.enabled { try Self.checkEndpoint(naver.profileURL, key: "signIn.naver.profileUrl") }
        guard clockSkew >= .zero else { throw ConfigurationError.invalid(key: "signIn.clockSkewSeconds", reason: "must not be negative") }
        guard requestTimeout > .zero else { throw ConfigurationError.invalid(key: "signIn.timeoutSeconds", reason: "must be positive") }
        guard keyRefetchInterval >= .zero else {
            throw ConfigurationError.invalid(key: "signIn.keyRefetchSeconds", reason: "must not be negative")
        }
        guard keyRetryDelay > .zero else { throw ConfigurationError.invalid(key: "signIn.keyRetrySeconds", reason: "must be positive") }
    }

    /// A provider endpoint must be HTTPS, or plain HTTP on a loopback address (a test's stand-in provider).
    private static func checkEndpoint(_ url: String, key: String) throws {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw ConfigurationError.invalid(key: key, reason: "must be an absolute URL")
        }
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        guard components.scheme == "https" || (components.scheme == "http" && loopback) else {
            throw ConfigurationError.invalid(key: key, reason: "must use https (plain http only on a loopback address)")
        }
    }
}
