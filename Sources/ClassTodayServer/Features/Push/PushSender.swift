import AsyncHTTPClient
import ClassTodayCore
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

/// Sends one push to one device of its platform and tells how the service answered. Never throws: every failure
/// becomes a ``PushOutcome``.
protocol PushSender: Sendable {
    /// Sends `content` to the device `token`.
    func send(_ content: PushContent, to token: String) async -> PushOutcome
}

/// The HTTP client push requests go through: HTTP/2 when the server offers it (APNs requires it), TLS verified
/// against the system's roots plus an optional configured CA file.
enum PushHTTP {
    /// The largest answer body read from a push service.
    static let maximumBodyBytes = 64 * 1024

    /// A client for `settings`; the caller shuts it down.
    static func makeClient(_ settings: PushSettings) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let path = settings.trustedCAPath { tls.additionalTrustRoots = [.file(path)] }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, timeout: .init(connect: .seconds(5), read: TimeAmount(settings.requestTimeout)))
        configuration.httpVersion = .automatic
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// An answer: status, headers and body.
    struct Answer: Sendable {
        /// The status code.
        let status: Int
        /// The headers.
        let headers: HTTPHeaders
        /// The body.
        let body: Data

        /// The `Retry-After` header in seconds, when it is a number.
        var retryAfter: Int? {
            headers.first(name: "retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// Runs `request` with `timeout`; nil when no answer came (no connection, timeout).
    static func execute(_ request: HTTPClientRequest, client: HTTPClient, timeout: Duration) async -> Answer? {
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            let body = try await response.body.collect(upTo: maximumBodyBytes)
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
        } catch {
            return nil
        }
    }
}
