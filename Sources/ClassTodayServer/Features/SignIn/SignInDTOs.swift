import ClassTodayCore
import Foundation
import Hummingbird

/// The body of `POST /v1/auth/{provider}` and `POST /v1/me/identities/{provider}`: `idToken` (and the `nonce` the app
/// used, if any) for Apple, Kakao and Google; `accessToken` for Naver.
struct ProviderCredentialRequest: Decodable {
    let idToken: String?
    let nonce: String?
    let accessToken: String?

    /// The credential `provider` takes; a 422 naming the missing field otherwise.
    func credential(for provider: IdentityProvider) throws -> ProviderCredential {
        var validator = FieldValidator()
        let field = IdentityProviders.credentialField(provider)
        let token = provider == .naver ? accessToken : idToken
        validator.require(token, field)
        if let token { validator.checkLength(token, field, Self.tokenLength) }
        if provider != .naver { validator.checkLength(nonce, "nonce", Self.nonceLength) }
        try validator.throwIfInvalid()
        guard let token else { throw DomainError.badRequest("\(field) is required") }
        return provider == .naver ? .accessToken(token) : .idToken(token, nonce: nonce)
    }

    /// Accepted token lengths, in characters.
    static let tokenLength = 1...16_384
    /// Accepted nonce lengths, in characters.
    static let nonceLength = 1...512
}

/// A linked identity, as its owner sees it: `{provider, email, linkedAt}`.
struct IdentityResponse: ResponseEncodable {
    let provider: IdentityProvider
    /// The email the provider gave when the identity was linked (null when it gave none).
    @Nullable var email: String?
    let linkedAt: Date

    init(_ identity: LinkedIdentity) {
        (provider, email, linkedAt) = (identity.provider, identity.email, identity.linkedAt)
    }
}

/// `GET /v1/me/identities`: `{items, nextCursor: null, hasPassword}`, every identity on one page.
struct IdentitiesResponse: ResponseEncodable {
    let items: [IdentityResponse]
    /// Always null: an account has at most one identity per provider.
    @Nullable var nextCursor: String?
    /// Whether the account can also sign in with email and password.
    let hasPassword: Bool

    init(_ methods: SignInMethods) {
        (items, nextCursor, hasPassword) = (methods.identities.map(IdentityResponse.init), nil, methods.hasPassword)
    }
}
