import AsyncHTTPClient
import ClassTodayCore
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// GET requests to sign-in providers (their key sets and profile APIs), bounded in time and size. A provider that
/// cannot be reached, times out or answers with a server error becomes ``DomainError/unavailable(_:retryAfterSeconds:)``,
/// a 503 with `Retry-After`, never a 500.
struct ProviderHTTP: Sendable {
    /// The client requests go through.
    let client: HTTPClient
    /// How long one request may take, body included.
    let timeout: Duration
    /// Where failures are logged (with the provider, never a token).
    let logger: Logger

    /// The largest provider answer read.
    static let maximumBodyBytes = 1 << 20
    /// What a client is told to wait after a provider failed, in seconds.
    static let retryAfterSeconds = 30

    /// An answer: its status code and body.
    struct Answer: Sendable {
        /// The HTTP status code.
        let status: Int
        /// The body bytes.
        let body: Data
    }

    /// GETs `url` (with `Authorization: Bearer` when `bearer` is given) for `provider`.
    func get(_ url: String, bearer: String? = nil, for provider: IdentityProvider) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let answer: Answer
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            let body = try await response.body.collect(upTo: Self.maximumBodyBytes)
            answer = Answer(status: Int(response.status.code), body: Data(buffer: body))
        } catch {
            logger.warning("sign-in provider unreachable", metadata: ["provider": "\(provider.rawValue)", "error": "\(error)"])
            throw Self.unavailable(provider)
        }
        if answer.status >= 500 {
            logger.warning("sign-in provider failed", metadata: ["provider": "\(provider.rawValue)", "status": "\(answer.status)"])
            throw Self.unavailable(provider)
        }
        return answer
    }

    /// The 503 for a provider that cannot answer now.
    static func unavailable(_ provider: IdentityProvider, retryAfter seconds: Int = retryAfterSeconds) -> DomainError {
        .unavailable("\(provider.displayName) cannot be reached right now; try again later", retryAfterSeconds: seconds)
    }
}
