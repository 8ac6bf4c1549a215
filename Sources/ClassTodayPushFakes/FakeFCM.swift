import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOCore
import NIOFoundationCompat
import Synchronization

/// A fake FCM on loopback: a token endpoint that checks the service account's RS256 assertion (signature, `iss`,
/// `aud`, `scope`) and issues access tokens, and the HTTP v1 send API, which checks the access token and the message
/// and records it. It can answer 404 `UNREGISTERED` for a token and 429/500 to the next sends.
public final class FakeFCM: Sendable {
    /// The Firebase project id.
    public let projectId: String
    /// The service account's email.
    public let clientEmail: String
    private let privateKeyPEM: String
    private let publicKey: _RSA.Signing.PublicKey
    private let ledger = FakeLedger()
    private let issued = Mutex<Set<String>>([])

    /// A fake with a new RSA 2048 service-account key.
    public init(projectId: String = "classtoday-test", clientEmail: String = "push@classtoday-test.iam.gserviceaccount.com") throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.privateKeyPEM = key.pkcs8PEMRepresentation
        self.publicKey = key.publicKey
        self.projectId = projectId
        self.clientEmail = clientEmail
    }

    /// The pushes accepted so far, in arrival order.
    public var received: [ReceivedPush] { ledger.received }
    /// Why requests were refused, in order.
    public var refusals: [String] { ledger.refusals }
    /// How many access tokens were issued.
    public var tokensIssued: Int { issued.withLock { $0.count } }
    /// Answers the next sends with `answers`, in order, then accepts again.
    public func plan(_ answers: [FakeAnswer]) { ledger.plan(answers) }
    /// Answers 404 `UNREGISTERED` for `token` from now on.
    public func unregister(_ token: String) { ledger.unregister(token) }

    /// The service-account JSON file's contents for a fake listening on `port`.
    public func serviceAccountJSON(port: Int) -> String {
        let object: [String: String] = [
            "type": "service_account", "project_id": projectId, "client_email": clientEmail,
            "private_key": privateKeyPEM, "token_uri": "http://127.0.0.1:\(port)/token",
        ]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
    }

    /// Runs `body` with the fake listening on a free loopback port (`http://127.0.0.1:port`).
    public func run<Value: Sendable>(_ body: @Sendable (_ port: Int) async throws -> Value) async throws -> Value {
        let router = Router()
        router.post("token") { request, _ -> Response in try await self.exchange(request) }
        router.post("v1/projects/{project}/{action}") { request, context -> Response in
            guard try context.parameters.require("project") == self.projectId, try context.parameters.require("action") == "messages:send" else {
                return .fakeJSON(["error": ["code": 404, "status": "NOT_FOUND"]], status: .notFound)
            }
            return try await self.send(request)
        }
        return try await FakeServerRunner.run({ onRunning in
            Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "fake-fcm"),
                        onServerRunning: onRunning, logger: FakeServerRunner.quietLogger("fake-fcm"))
        }, body)
    }

    /// The claims of the service account's assertion.
    private struct Assertion: JWTPayload {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int
        let exp: Int

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private func exchange(_ request: Request) async throws -> Response {
        let body = String(buffer: try await request.body.collect(upTo: 16384))
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            ledger.refuse("grant_type")
            return .fakeJSON(["error": "unsupported_grant_type"], status: .badRequest)
        }
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PublicKey(backing: publicKey), digestAlgorithm: .sha256)
        guard let claims = try? await keys.verify(assertion, as: Assertion.self), claims.iss == clientEmail,
              claims.scope == "https://www.googleapis.com/auth/firebase.messaging", claims.aud.hasSuffix("/token"),
              claims.exp > Int(Date().timeIntervalSince1970) else {
            ledger.refuse("assertion")
            return .fakeJSON(["error": "invalid_grant"], status: .badRequest)
        }
        let token = "fake-access-" + UUID().uuidString
        issued.withLock { _ = $0.insert(token) }
        return .fakeJSON(["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
    }

    private func send(_ request: Request) async throws -> Response {
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let bearer, issued.withLock({ $0.contains(bearer) }) else {
            ledger.refuse("access token")
            return .fakeJSON(["error": ["code": 401, "status": "UNAUTHENTICATED"]], status: .unauthorized)
        }
        let body = try await request.body.collect(upTo: 8192)
        guard let json = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              let message = json["message"] as? [String: Any], let token = message["token"] as? String,
              let notification = message["notification"] as? [String: Any],
              let title = notification["title"] as? String, let text = notification["body"] as? String,
              let android = message["android"] as? [String: Any], let collapse = android["collapse_key"] as? String,
              let androidNotification = android["notification"] as? [String: Any], let tag = androidNotification["tag"] as? String,
              let data = message["data"] as? [String: String] else {
            ledger.refuse("message")
            return .fakeJSON(["error": ["code": 400, "status": "INVALID_ARGUMENT"]], status: .badRequest)
        }
        switch ledger.nextPlanned() {
        case .tooManyRequests(let retryAfter):
            return .fakeJSON(["error": ["code": 429, "status": "RESOURCE_EXHAUSTED"]], status: .tooManyRequests,
                             headers: retryAfter > 0 ? [HTTPField.Name("Retry-After")!: String(retryAfter)] : [:])
        case .serverError:
            return .fakeJSON(["error": ["code": 500, "status": "INTERNAL"]], status: .internalServerError)
        case nil:
            break
        }
        if ledger.isUnregistered(token) {
            return .fakeJSON(["error": ["code": 404, "status": "NOT_FOUND", "details": [
                ["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"],
            ]] as [String: Any]], status: .notFound)
        }
        ledger.accept(ReceivedPush(
            platform: "android", deviceToken: token, title: title, body: text, badge: androidNotification["notification_count"] as? Int,
            threadId: tag, collapseId: collapse, data: data, receivedAt: Date()))
        return .fakeJSON(["name": "projects/\(projectId)/messages/\(UUID().uuidString)"])
    }
}
