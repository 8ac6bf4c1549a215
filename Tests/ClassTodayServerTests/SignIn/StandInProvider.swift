import ClassTodayCore
import ClassTodayServer
import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import Synchronization
import Testing

/// A signing key generated in the test, published in the stand-in's key set under `kid`.
struct TestSigningKey: Sendable {
    /// The key id.
    let kid: String
    /// The JWK of the public half, as the key set lists it.
    let jwk: [String: String]
    /// Signs with the private half.
    let signer: JWTKeyCollection

    /// A new ES256 (P-256) key.
    static func es256(kid: String) async throws -> TestSigningKey {
        let key = P256.Signing.PrivateKey()
        let (x, y) = try #require(try ES256PublicKey(backing: key.publicKey).parameters)
        let signer = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
        return TestSigningKey(kid: kid, jwk: ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid, "x": x, "y": y],
                              signer: signer)
    }

    /// A new RS256 (RSA 2048) key.
    static func rs256(kid: String) async throws -> TestSigningKey {
        let key = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let signer = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return TestSigningKey(kid: kid, jwk: ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
                                              "n": modulus.base64URLEncoded, "e": exponent.base64URLEncoded], signer: signer)
    }

    /// A token with `claims`, signed by this key (its header names `kid`).
    func sign(_ claims: TestClaims) async throws -> String {
        try await signer.sign(claims, kid: JWKIdentifier(string: kid))
    }
}

/// The claims of a test ID token: what a provider puts in one.
struct TestClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int
    var iat: Int
    var nbf: Int?
    var nonce: String?
    var email: String?
    var email_verified: String?
    var name: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A stand-in for the sign-in providers, on loopback: `GET /jwks` serves the published keys (counting fetches),
/// `GET /naver/me` answers Naver's profile API for the access tokens it was given.
final class StandInProvider: Sendable {
    private struct State {
        var keys: [TestSigningKey] = []
        var jwksFetches = 0
        var jwksDown = false
        var naverProfiles: [String: [String: String]] = [:]
    }

    private let state = Mutex(State())

    /// Publishes exactly `keys` from now on (a rotation replaces them).
    func publish(_ keys: [TestSigningKey]) {
        state.withLock { $0.keys = keys }
    }

    /// Makes the key set answer 503 (an outage) until called again with false.
    func setKeySetDown(_ down: Bool) {
        state.withLock { $0.jwksDown = down }
    }

    /// How many times the key set was fetched.
    var jwksFetches: Int { state.withLock { $0.jwksFetches } }

    /// Makes the profile API answer `accessToken` with `profile` (`id`, `nickname`, `email`).
    func acceptNaverToken(_ accessToken: String, profile: [String: String]) {
        state.withLock { $0.naverProfiles[accessToken] = profile }
    }

    /// Runs `body` with the stand-in listening on a free loopback port.
    func run<Value: Sendable>(_ body: @Sendable (_ port: Int) async throws -> Value) async throws -> Value {
        let router = Router()
        router.get("jwks") { _, _ -> Response in
            let keys = self.state.withLock { state in
                state.jwksFetches += 1
                return state.jwksDown ? nil : state.keys.map(\.jwk)
            }
            guard let keys else { return Self.json(["error": "unavailable"], status: .serviceUnavailable) }
            return Self.json(["keys": keys])
        }
        router.get("naver/me") { request, _ -> Response in
            let token = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            guard let token, let profile = self.state.withLock({ $0.naverProfiles[token] }) else {
                return Self.json(["resultcode": "024", "message": "Authentication failed"], status: .unauthorized)
            }
            return Self.json(["resultcode": "00", "message": "success", "response": profile])
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.runTest(.live) { client in try await body(try #require(client.port)) }
    }

    private static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
