import AsyncHTTPClient
import ClassTodayCore
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1

/// Sends pushes to Android devices through the FCM HTTP v1 API, with an OAuth access token obtained for the
/// service account.
struct FCMClient: PushSender {
    /// The service account and the endpoints.
    let credentials: PushCredentials.FCM
    /// The HTTP client.
    let client: HTTPClient
    /// The current access token.
    let tokens: FCMAccessToken
    /// The longest request.
    let timeout: Duration
    /// Where failures are logged (never with a token).
    let logger: Logger

    /// Creates a client.
    init(credentials: PushCredentials.FCM, client: HTTPClient, timeout: Duration, logger: Logger) {
        self.credentials = credentials
        self.client = client
        self.tokens = FCMAccessToken(credentials: credentials, client: client, timeout: timeout)
        self.timeout = timeout
        self.logger = logger
    }

    func send(_ content: PushContent, to token: String) async -> PushOutcome {
        let outcome = await attempt(content, to: token)
        // An access token FCM no longer takes (revoked, clocks apart) is exchanged anew once, right away.
        if case .failed(let reason) = outcome, reason == "status 401" {
            await tokens.invalidate()
            return await attempt(content, to: token)
        }
        return outcome
    }

    private func attempt(_ content: PushContent, to token: String) async -> PushOutcome {
        let accessToken: String
        switch await tokens.current() {
        case .success(let value): accessToken = value
        case .failure(let failure): return failure.outcome
        }
        var request = HTTPClientRequest(url: credentials.endpoint + "/v1/projects/" + credentials.projectId + "/messages:send")
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer " + accessToken)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Self.payload(content, token: token)))
        guard let answer = await PushHTTP.execute(request, client: client, timeout: timeout) else { return .retry(retryAfter: nil) }
        switch answer.status {
        case 200: return .sent
        case 404 where Self.errorCodes(answer.body).contains("UNREGISTERED"): return .unregistered
        case 400 where Self.errorCodes(answer.body).contains("UNREGISTERED"): return .unregistered
        case 429, 500...599: return .retry(retryAfter: answer.retryAfter)
        default:
            logger.warning("FCM refused a push", metadata: ["status": "\(answer.status)"])
            return .failed(reason: "status \(answer.status)")
        }
    }

    /// The JSON body of `messages:send`.
    static func payload(_ content: PushContent, token: String) -> [UInt8] {
        var data = content.data
        data["badge"] = String(content.badge)
        let message: [String: Any] = [
            "token": token,
            "notification": ["title": content.title, "body": content.body],
            "android": [
                "collapse_key": content.collapseId,
                "notification": ["tag": content.threadId, "notification_count": content.badge] as [String: Any],
            ] as [String: Any],
            "data": data,
        ]
        return Array((try? JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys])) ?? Data("{}".utf8))
    }

    /// The `errorCode`s of an FCM error body (`error.details[].errorCode`) and its `error.status`.
    static func errorCodes(_ body: Data) -> [String] {
        guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let error = json["error"] as? [String: Any] else { return [] }
        let details = (error["details"] as? [[String: Any]]) ?? []
        return details.compactMap { $0["errorCode"] as? String } + [error["status"] as? String].compactMap { $0 }
    }
}

/// The OAuth access token FCM takes: an RS256 assertion signed with the service account's key is exchanged at its
/// `token_uri` (JWT bearer grant), and the answer is reused until shortly before it expires.
actor FCMAccessToken {
    /// A failed exchange, as the push it held back should be treated.
    struct Failure: Error {
        /// What becomes of the push.
        let outcome: PushOutcome
    }

    /// The scope of FCM's send API.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long before its expiry a token is replaced.
    static let margin: TimeInterval = 300

    private let keys = JWTKeyCollection()
    private let credentials: PushCredentials.FCM
    private let client: HTTPClient
    private let timeout: Duration
    private var token: (value: String, expiresAt: Date)?
    private var keyAdded = false

    /// The assertion's claims.
    private struct Assertion: JWTPayload {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int
        let exp: Int

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The token endpoint's answer.
    private struct Grant: Decodable {
        let access_token: String
        let expires_in: Int
    }

    /// A token source for `credentials`.
    init(credentials: PushCredentials.FCM, client: HTTPClient, timeout: Duration) {
        self.credentials = credentials
        self.client = client
        self.timeout = timeout
    }

    /// The token to send now, exchanged anew when the last one is about to expire.
    func current(now: Date = Date()) async -> Result<String, Failure> {
        if let token, token.expiresAt.timeIntervalSince(now) > Self.margin { return .success(token.value) }
        if !keyAdded {
            await keys.add(rsa: credentials.privateKey, digestAlgorithm: .sha256)
            keyAdded = true
        }
        let issued = Int(now.timeIntervalSince1970)
        let assertion: String
        do {
            assertion = try await keys.sign(Assertion(iss: credentials.clientEmail, scope: Self.scope, aud: credentials.tokenURI,
                                                      iat: issued, exp: issued + 3600))
        } catch {
            return .failure(Failure(outcome: .failed(reason: "signing")))
        }
        var request = HTTPClientRequest(url: credentials.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let form = "grant_type=" + Self.formEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + Self.formEncoded(assertion)
        request.body = .bytes(ByteBuffer(string: form))
        guard let answer = await PushHTTP.execute(request, client: client, timeout: timeout) else {
            return .failure(Failure(outcome: .retry(retryAfter: nil)))
        }
        guard answer.status == 200, let grant = try? JSONDecoder().decode(Grant.self, from: answer.body) else {
            let retryable = answer.status == 429 || answer.status >= 500
            return .failure(Failure(outcome: retryable ? .retry(retryAfter: answer.retryAfter) : .failed(reason: "token exchange \(answer.status)")))
        }
        token = (grant.access_token, now.addingTimeInterval(TimeInterval(grant.expires_in)))
        return .success(grant.access_token)
    }

    /// Forgets the current token.
    func invalidate() {
        token = nil
    }

    /// `value` encoded for an `application/x-www-form-urlencoded` body.
    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
