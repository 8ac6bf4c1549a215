import Foundation
import JWTKit

/// The claims of an OpenID Connect ID token that sign-in reads. Every claim is optional here so that a missing one
/// is reported by the check it fails (``OpenIDTokenVerifier``), not as an unreadable token; `verify(using:)` checks
/// nothing, the verifier checks each claim itself to say which one failed.
struct IDTokenClaims: JWTPayload {
    /// `iss`.
    var issuer: String?
    /// `sub`: the provider's stable id of the user.
    var subject: String?
    /// `aud`: one client id or several.
    var audience: [String]
    /// `exp`, seconds since 1970.
    var expires: Double?
    /// `iat`, seconds since 1970.
    var issuedAt: Double?
    /// `nbf`, seconds since 1970: the token must not be accepted before it (RFC 7519 4.1.5).
    var notBefore: Double?
    /// `nonce`.
    var nonce: String?
    /// `email`.
    var email: String?
    /// `email_verified`: a boolean, or the strings "true" and "false" (Apple).
    var emailVerified: Bool?
    /// `name` (Google) or `nickname` (Kakao).
    var name: String?

    private enum CodingKeys: String, CodingKey {
        case issuer = "iss", subject = "sub", audience = "aud", expires = "exp", issuedAt = "iat", notBefore = "nbf", nonce, email
        case emailVerified = "email_verified", name, nickname
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try? container.decodeIfPresent(String.self, forKey: .issuer)
        subject = try? container.decodeIfPresent(String.self, forKey: .subject)
        if let one = try? container.decode(String.self, forKey: .audience) {
            audience = [one]
        } else {
            audience = (try? container.decodeIfPresent([String].self, forKey: .audience)) ?? []
        }
        expires = try? container.decodeIfPresent(Double.self, forKey: .expires)
        issuedAt = try? container.decodeIfPresent(Double.self, forKey: .issuedAt)
        // An `nbf` that is not a number cannot be honoured: it reads as never valid, not as absent.
        notBefore = container.contains(.notBefore) ? (try? container.decode(Double.self, forKey: .notBefore)) ?? .infinity : nil
        nonce = try? container.decodeIfPresent(String.self, forKey: .nonce)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
        if let flag = try? container.decode(Bool.self, forKey: .emailVerified) {
            emailVerified = flag
        } else {
            emailVerified = (try? container.decodeIfPresent(String.self, forKey: .emailVerified)).flatMap { $0.map { $0 == "true" } }
        }
        name = (try? container.decodeIfPresent(String.self, forKey: .name)) ?? (try? container.decodeIfPresent(String.self, forKey: .nickname)) ?? nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(subject, forKey: .subject)
        try container.encode(audience, forKey: .audience)
        try container.encodeIfPresent(expires, forKey: .expires)
        try container.encodeIfPresent(issuedAt, forKey: .issuedAt)
        try container.encodeIfPresent(notBefore, forKey: .notBefore)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try container.encodeIfPresent(name, forKey: .name)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
