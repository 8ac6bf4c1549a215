import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import JWTKit
import NIOCore
import NIOFoundationCompat
import Synchronization

/// A fake APNs on loopback, HTTP/2 over TLS with a certificate from ``TestCertificateAuthority``. It checks each
/// push as APNs would (the provider token's ES256 signature against the key's public half, its `kid` and `iss`, the
/// headers and the payload), records the pushes it accepts and the reasons it refused others, and can be told to
/// answer 410 `Unregistered` for a token or 429/500 to the next pushes.
public final class FakeAPNs: Sendable {
    /// The signing key: the test writes its PEM to the `.p8` file the server reads.
    public let keyPEM: String
    /// The key id the token must name.
    public let keyId: String
    /// The team id the token must name.
    public let teamId: String
    /// The bundle id `apns-topic` must be.
    public let topic: String
    private let publicKey: P256.Signing.PublicKey
    private let authority: TestCertificateAuthority
    private let ledger = FakeLedger()
    /// Provider tokens whose signature was already checked (APNs, too, checks a token once and then caches it).
    private let verifiedTokens = Mutex<[String: Int]>([:])

    /// A fake with a new signing key.
    public init(keyId: String = "KEY1234567", teamId: String = "TEAM123456", topic: String = "app.classtoday.ios") throws {
        let key = P256.Signing.PrivateKey()
        self.keyPEM = key.pemRepresentation
        self.publicKey = key.publicKey
        self.keyId = keyId
        self.teamId = teamId
        self.topic = topic
        self.authority = try TestCertificateAuthority()
    }

    /// The CA certificate (PEM) the server's certificate chains to.
    public var caPEM: String { authority.caPEM }
    /// Writes the CA certificate to a temporary file and returns its path.
    public func writeCAFile() throws -> String { try authority.writeCAFile() }
    /// The pushes accepted so far, in arrival order.
    public var received: [ReceivedPush] { ledger.received }
    /// Why requests were refused (failed checks), in order.
    public var refusals: [String] { ledger.refusals }
    /// How many push requests arrived.
    public var requests: Int { ledger.requests }
    /// Answers the next pushes with `answers`, in order, then accepts again.
    public func plan(_ answers: [FakeAnswer]) { ledger.plan(answers) }
    /// Answers 410 `Unregistered` for `token` from now on.
    public func unregister(_ token: String) { ledger.unregister(token) }

    /// Runs `body` with the fake listening on a free loopback port (`https://127.0.0.1:port`).
    public func run<Value: Sendable>(_ body: @Sendable (_ port: Int) async throws -> Value) async throws -> Value {
        let router = Router()
        router.post("3/device/{token}") { request, context -> Response in
            try await self.handle(request, token: try context.parameters.require("token"))
        }
        let tls = authority.serverTLSConfiguration
        return try await FakeServerRunner.run({ onRunning in
            Application(router: router, server: try .http2Upgrade(tlsConfiguration: tls),
                        configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "fake-apns"),
                        onServerRunning: onRunning, logger: FakeServerRunner.quietLogger("fake-apns"))
        }, body)
    }

    /// The claims of a provider token.
    private struct ProviderClaims: JWTPayload {
        let iss: String
        let iat: Int

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private func handle(_ request: Request, token: String) async throws -> Response {
        let body = try await request.body.collect(upTo: 4096)
        if let problem = await check(request.headers) {
            ledger.refuse(problem)
            return .fakeJSON(["reason": problem], status: problem.hasSuffix("ProviderToken") ? .forbidden : .badRequest)
        }
        guard let payload = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              let aps = payload["aps"] as? [String: Any], let alert = aps["alert"] as? [String: Any],
              let title = alert["title"] as? String, let text = alert["body"] as? String,
              aps["sound"] as? String == "default", let badge = aps["badge"] as? Int else {
            ledger.refuse("BadPayload")
            return .fakeJSON(["reason": "PayloadEmpty"], status: .badRequest)
        }
        switch ledger.nextPlanned() {
        case .tooManyRequests(let retryAfter):
            return .fakeJSON(["reason": "TooManyRequests"], status: .tooManyRequests,
                             headers: retryAfter > 0 ? [HTTPField.Name("Retry-After")!: String(retryAfter)] : [:])
        case .serverError:
            return .fakeJSON(["reason": "InternalServerError"], status: .internalServerError)
        case nil:
            break
        }
        if ledger.isUnregistered(token) {
            return .fakeJSON(["reason": "Unregistered", "timestamp": Int(Date().timeIntervalSince1970 * 1000)], status: .gone)
        }
        var data: [String: String] = [:]
        for (key, value) in payload where key != "aps" { data[key] = value as? String }
        ledger.accept(ReceivedPush(
            platform: "ios", deviceToken: token, title: title, body: text, badge: badge, threadId: aps["thread-id"] as? String,
            collapseId: request.headers[HTTPField.Name("apns-collapse-id")!], data: data, receivedAt: Date()))
        return Response(status: .ok, headers: [HTTPField.Name("apns-id")!: UUID().uuidString])
    }

    /// The reason APNs would give for the request's headers, or nil when they are right.
    private func check(_ headers: HTTPFields) async -> String? {
        func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }
        guard let authorization = header("authorization"), authorization.hasPrefix("bearer ") else { return "MissingProviderToken" }
        let providerToken = String(authorization.dropFirst("bearer ".count))
        let issuedAt: Int
        if let known = verifiedTokens.withLock({ $0[providerToken] }) {
            issuedAt = known
        } else {
            switch await checkSignature(providerToken) {
            case .failure(let problem): return problem.reason
            case .success(let iat): issuedAt = iat
            }
            verifiedTokens.withLock { $0[providerToken] = issuedAt }
        }
        guard abs(Date().timeIntervalSince1970 - Double(issuedAt)) < 3600 else { return "ExpiredProviderToken" }
        guard header("apns-topic") == topic else { return "BadTopic" }
        guard header("apns-push-type") == "alert" else { return "InvalidPushType" }
        guard header("apns-priority") == "10" else { return "BadPriority" }
        guard let collapse = header("apns-collapse-id"), !collapse.isEmpty, collapse.utf8.count <= 64 else { return "BadCollapseId" }
        guard let expiration = header("apns-expiration"), Int(expiration) != nil else { return "BadExpirationDate" }
        return nil
    }

    /// A provider token APNs refuses, with its reason.
    private struct Refusal: Error {
        /// APNs's reason.
        let reason: String
    }

    /// The provider token's `iat` when its signature, `kid` and `iss` are right; the reason APNs would give otherwise.
    private func checkSignature(_ token: String) async -> Result<Int, Refusal> {
        guard let verifier = try? ES256PublicKey(backing: publicKey) else { return .failure(Refusal(reason: "InternalServerError")) }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: verifier, kid: JWKIdentifier(string: keyId))
        guard let claims = try? await keys.verify(token, as: ProviderClaims.self), claims.iss == teamId else {
            return .failure(Refusal(reason: "InvalidProviderToken"))
        }
        return .success(claims.iat)
    }
}
