import AsyncHTTPClient
import ClassTodayCore
import Foundation
import Logging

/// What a client sends to prove who it is at a provider: an ID token (Apple, Kakao, Google) with the nonce the app
/// used, or an access token (Naver).
enum ProviderCredential: Sendable {
    /// An OpenID Connect ID token and, if the app sent one to the provider, its nonce.
    case idToken(String, nonce: String?)
    /// An OAuth access token.
    case accessToken(String)
}

/// The configured sign-in providers: each turns a client's credential into a ``VerifiedIdentity``.
struct IdentityProviders: Sendable {
    private enum Verifier: Sendable {
        case openID(OpenIDTokenVerifier)
        case naver(NaverProfileClient)
    }

    private let verifiers: [IdentityProvider: Verifier]

    /// The providers `settings` configures, making their requests through `client`.
    init(_ settings: SignInSettings, client: HTTPClient, logger: Logger) {
        let http = ProviderHTTP(client: client, timeout: settings.requestTimeout, logger: logger)
        var verifiers: [IdentityProvider: Verifier] = [:]
        for provider in IdentityProvider.allCases {
            if let openID = settings.openID(provider), openID.isConfigured {
                let keys = JWKSCache(provider: provider, url: openID.jwksURL, refetchInterval: settings.keyRefetchInterval,
                                     firstRetryDelay: settings.keyRetryDelay, http: http, logger: logger)
                verifiers[provider] = .openID(OpenIDTokenVerifier(provider: provider, settings: openID, keys: keys,
                                                                  clockSkew: settings.clockSkew))
            } else if provider == .naver, settings.naver.enabled {
                verifiers[provider] = .naver(NaverProfileClient(profileURL: settings.naver.profileURL, http: http))
            }
        }
        self.verifiers = verifiers
    }

    /// The provider named `name` when it is configured; a 404 otherwise.
    func configured(_ name: String) throws -> IdentityProvider {
        guard let provider = IdentityProvider(rawValue: name), verifiers[provider] != nil else {
            throw DomainError.notFound("sign-in provider '\(name.prefix(20))'")
        }
        return provider
    }

    /// The field a client must send for `provider`: `idToken`, or `accessToken` for Naver.
    static func credentialField(_ provider: IdentityProvider) -> String {
        provider == .naver ? "accessToken" : "idToken"
    }

    /// Checks `credential` with `provider` and returns whom it identifies.
    func verify(_ provider: IdentityProvider, _ credential: ProviderCredential, now: Date) async throws -> VerifiedIdentity {
        switch (verifiers[provider], credential) {
        case (.openID(let verifier), .idToken(let token, let nonce)):
            return try await verifier.verify(token, nonce: nonce, now: now)
        case (.naver(let client), .accessToken(let token)):
            return try await client.identity(accessToken: token)
        default:
            throw DomainError.invalid(Self.credentialField(provider), "is required")
        }
    }
}
