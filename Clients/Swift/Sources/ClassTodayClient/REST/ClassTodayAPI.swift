import Foundation
import OpenAPIRuntime
#if canImport(OpenAPIURLSession)
import OpenAPIURLSession
#endif
#if canImport(OpenAPIAsyncHTTPClient)
import OpenAPIAsyncHTTPClient
#endif

/// Makes the generated REST `Client` for a ClassToday server, wired to a session's tokens.
public enum ClassTodayAPI {
    /// The platform's HTTP transport: URLSession on Apple platforms, AsyncHTTPClient on Linux.
    public static func defaultTransport() -> any ClientTransport {
        #if canImport(OpenAPIURLSession)
        URLSessionTransport()
        #else
        AsyncHTTPClientTransport()
        #endif
    }

    /// A client of the server at `serverURL` (for example `https://api.example.com`; the document's paths start
    /// with `/v1`) that sends `session`'s bearer token and renews it once on a 401.
    public static func makeClient(
        serverURL: URL,
        session: SessionStore,
        transport: any ClientTransport = defaultTransport(),
        middlewares: [any ClientMiddleware] = []
    ) -> Client {
        let refresher = makeRefresher(serverURL: serverURL, transport: transport)
        return Client(
            serverURL: serverURL,
            transport: transport,
            middlewares: [BearerTokenMiddleware(session: session, refresher: refresher)] + middlewares
        )
    }

    /// Renews tokens at `POST /v1/auth/refresh` with a client of its own (no bearer token, no retry).
    public static func makeRefresher(
        serverURL: URL,
        transport: any ClientTransport = defaultTransport()
    ) -> SessionStore.Refresher {
        let client = Client(serverURL: serverURL, transport: transport)
        return { refreshToken in
            switch try await client.refreshSession(body: .json(.init(refreshToken: refreshToken))) {
            case .ok(let ok): return SessionStore.Tokens(try ok.body.json)
            case .unauthorized: return nil
            case let other: throw UnexpectedRefreshResponse(response: "\(other)")
            }
        }
    }
}

/// The refresh endpoint answered with something else than new tokens or a 401 (a 429, a 5xx).
public struct UnexpectedRefreshResponse: Error, CustomStringConvertible {
    /// The response, as the generated client shows it.
    public let response: String
    /// A short account of the failure.
    public var description: String { "POST /v1/auth/refresh answered unexpectedly: \(response)" }
}
