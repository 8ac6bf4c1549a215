import AsyncHTTPClient
import ClassTodayCore
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1

/// Sends pushes to iOS devices through APNs over HTTP/2, authenticated with an ES256 provider token.
struct APNsClient: PushSender {
    /// The key and the app.
    let credentials: PushCredentials.APNs
    /// The HTTP/2 client.
    let client: HTTPClient
    /// The current provider token.
    let tokens: APNsProviderToken
    /// The longest request.
    let timeout: Duration
    /// Where failures are logged (never with a token).
    let logger: Logger

    /// How long APNs keeps a push for a device that is offline.
    static let expiration: TimeInterval = 24 * 3600

    /// Creates a client that signs a new provider token every `refresh`.
    init(credentials: PushCredentials.APNs, client: HTTPClient, refresh: Duration, timeout: Duration, logger: Logger) {
        self.credentials = credentials
        self.client = client
        self.tokens = APNsProviderToken(credentials: credentials, refresh: refresh)
        self.timeout = timeout
        self.logger = logger
    }

    func send(_ content: PushContent, to token: String) async -> PushOutcome {
        let outcome = await attempt(content, to: token)
        // A provider token APNs calls expired (clocks apart) is signed anew once, right away.
        if case .failed(let reason) = outcome, reason == "ExpiredProviderToken" {
            await tokens.invalidate()
            return await attempt(content, to: token)
        }
        return outcome
    }

    private func attempt(_ content: PushContent, to token: String) async -> PushOutcome {
        let bearer: String
        do {
            bearer = try await tokens.current()
        } catch {
            logger.error("signing the APNs provider token failed", metadata: ["error": "\(String(reflecting: error))"])
            return .failed(reason: "signing")
        }
        var request = HTTPClientRequest(url: credentials.endpoint + "/3/device/" + token)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + bearer)
        request.headers.add(name: "apns-topic", value: credentials.topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "apns-collapse-id", value: content.collapseId)
        request.headers.add(name: "apns-expiration", value: String(Int(Date().timeIntervalSince1970 + Self.expiration)))
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Self.payload(content)))
        guard let answer = await PushHTTP.execute(request, client: client, timeout: timeout) else { return .retry(retryAfter: nil) }
        let reason = (try? JSONDecoder().decode(APNsError.self, from: answer.body))?.reason ?? ""
        switch answer.status {
        case 200: return .sent
        case 410: return .unregistered
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic": return .unregistered
        case 429, 500...599: return .retry(retryAfter: answer.retryAfter)
        default:
            logger.warning("APNs refused a push", metadata: ["status": "\(answer.status)", "reason": "\(reason)"])
            return .failed(reason: reason.isEmpty ? "status \(answer.status)" : reason)
        }
    }

    /// An APNs error body.
    private struct APNsError: Decodable {
        let reason: String
    }

    /// The JSON body: `aps` with the alert, badge, sound and thread, and the custom keys beside it.
    static func payload(_ content: PushContent) -> [UInt8] {
        var object: [String: Any] = [:]
        for (key, value) in content.data where key != "aps" { object[key] = value }
        object["aps"] = [
            "alert": ["title": content.title, "body": content.body],
            "badge": content.badge,
            "sound": "default",
            "thread-id": content.threadId,
        ] as [String: Any]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}

/// The APNs provider token: an ES256 JWT (`kid` the key id, `iss` the team id, `iat` now), signed once and reused
/// until it is `refresh` old (Apple refuses tokens older than an hour, and throttles signing them too often).
actor APNsProviderToken {
    private let keys = JWTKeyCollection()
    private let credentials: PushCredentials.APNs
    private let refresh: Duration
    private var token: (value: String, issuedAt: Date)?
    private var keyAdded = false

    /// The claims of a provider token.
    private struct Claims: JWTPayload {
        let iss: String
        let iat: Int

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A token source for `credentials`.
    init(credentials: PushCredentials.APNs, refresh: Duration) {
        self.credentials = credentials
        self.refresh = refresh
    }

    /// The token to send now, signed anew when the last one is `refresh` old.
    func current(now: Date = Date()) async throws -> String {
        if let token, now.timeIntervalSince(token.issuedAt) < refresh.seconds, now >= token.issuedAt {
            return token.value
        }
        let kid = JWKIdentifier(string: credentials.keyId)
        if !keyAdded {
            await keys.add(ecdsa: credentials.key, kid: kid)
            keyAdded = true
        }
        let value = try await keys.sign(Claims(iss: credentials.teamId, iat: Int(now.timeIntervalSince1970)), kid: kid)
        token = (value, now)
        return value
    }

    /// Forgets the current token: the next push signs a new one.
    func invalidate() {
        token = nil
    }
}
