import ClassTodayCore
import Crypto
import Foundation
import JWTKit

/// Checks an OpenID Connect ID token of one provider: its signature against the provider's key set (RS256 or ES256,
/// the key named by `kid`), then `iss`, `aud`, `exp`, `iat` and `nbf` (within the clock skew) and `nonce` when the client
/// sent one. A token failing a check is a 401 naming the check; the token itself is never echoed.
struct OpenIDTokenVerifier: Sendable {
    /// The provider.
    let provider: IdentityProvider
    /// Its issuers and client ids.
    let settings: OpenIDProviderSettings
    /// Its keys.
    let keys: JWKSCache
    /// How far `exp` and `iat` may be off the server's clock.
    let clockSkew: Duration

    /// The signature algorithms accepted: what Apple, Google and Kakao sign with, and ES256.
    static let algorithms: Set<String> = ["RS256", "ES256"]

    /// The checks a token can fail, named in the 401's detail.
    enum Check: String {
        /// The token is a JWT signed (RS256 or ES256) by the provider's key that its `kid` names.
        case signature
        /// `iss` is one of the provider's issuers.
        case issuer
        /// `aud` names one of the app's client ids.
        case audience
        /// `exp` is not past (within the clock skew).
        case expired
        /// `iat` is present and not in the future (within the clock skew).
        case issuedAt = "issued-at"
        /// `nbf`, when present, is not in the future (within the clock skew).
        case notBefore = "not-before"
        /// `nonce` is the one the client sent (or its SHA-256).
        case nonce
        /// `sub` names the user.
        case subject
    }

    /// The identity the token vouches for. `nonce`, when given, must equal the token's `nonce` claim or its SHA-256
    /// in hex (Sign in with Apple puts the hash of the app's nonce in the token).
    func verify(_ token: String, nonce: String?, now: Date) async throws -> VerifiedIdentity {
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse([UInt8](token.utf8), as: IDTokenClaims.self).header
        } catch {
            throw Self.rejection(.signature, "it is not a well-formed JWT")
        }
        guard let algorithm = header.alg, Self.algorithms.contains(algorithm) else {
            throw Self.rejection(.signature, "it is not signed with RS256 or ES256")
        }
        guard let keyId = header.kid, !keyId.isEmpty else { throw Self.rejection(.signature, "it names no key (kid)") }
        guard let collection = try await keys.keys(holding: keyId) else {
            throw Self.rejection(.signature, "\(provider.displayName) has no key with its kid")
        }
        let claims: IDTokenClaims
        do {
            claims = try await collection.verify(token, as: IDTokenClaims.self)
        } catch {
            throw Self.rejection(.signature, "the signature does not match \(provider.displayName)'s key")
        }
        try check(claims, nonce: nonce, now: now.timeIntervalSince1970)
        guard let subject = claims.subject, UserRules.isValidProviderSubject(subject) else {
            throw Self.rejection(.subject, "it names no user, or not by a valid id (sub)")
        }
        return VerifiedIdentity(provider: provider, subject: subject,
                                email: claims.emailVerified == false ? nil : claims.email, name: claims.name)
    }

    /// Checks the claims of a token whose signature is good.
    private func check(_ claims: IDTokenClaims, nonce: String?, now: Double) throws {
        let skew = clockSkew.seconds
        guard let issuer = claims.issuer, settings.issuers.contains(issuer) else {
            throw Self.rejection(.issuer, "it was not issued by \(provider.displayName)")
        }
        guard claims.audience.contains(where: settings.clientIds.contains) else {
            throw Self.rejection(.audience, "it was not issued to this app")
        }
        guard let expires = claims.expires, now <= expires + skew else { throw Self.rejection(.expired, "it has expired") }
        guard let issuedAt = claims.issuedAt, issuedAt <= now + skew else {
            throw Self.rejection(.issuedAt, "it has no issue time or one in the future")
        }
        if let notBefore = claims.notBefore, notBefore > now + skew {
            throw Self.rejection(.notBefore, "it is not valid yet (nbf)")
        }
        if let nonce {
            let hashed = SHA256.hash(data: Data(nonce.utf8)).hexString
            guard let claimed = claims.nonce, claimed == nonce || claimed == hashed else {
                throw Self.rejection(.nonce, "its nonce is not the one sent")
            }
        }
    }

    /// The 401 for a token that failed `check`.
    static func rejection(_ check: Check, _ reason: String) -> DomainError {
        .unauthorized("the ID token failed the \(check.rawValue) check: \(reason)")
    }
}
