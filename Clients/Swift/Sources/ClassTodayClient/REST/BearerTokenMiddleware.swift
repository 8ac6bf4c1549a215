import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Adds `Authorization: Bearer <token>` to every request but the sign-in ones, and on a 401 renews the token once
/// with the refresh token and sends the request again.
///
/// When the renewal is refused the session is signed out and the caller gets the server's 401 (a `Problem`); a
/// successful `logout` signs it out too.
public struct BearerTokenMiddleware: ClientMiddleware {
    /// Operations that sign in: they carry no bearer token, and their 401 means wrong credentials.
    public static let signInOperations: Set<String> = ["signup", "login", "refreshSession", "signInWithProvider"]

    /// The largest request body buffered so that it can be sent again after a refresh.
    public static let maximumReplayedBodyBytes = 64 << 20

    private let session: SessionStore
    private let refresher: SessionStore.Refresher

    /// A middleware that reads tokens from `session` and renews them with `refresher`.
    public init(session: SessionStore, refresher: @escaping SessionStore.Refresher) {
        (self.session, self.refresher) = (session, refresher)
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard !Self.signInOperations.contains(operationID), let token = await session.accessToken else {
            return try await next(request, body, baseURL)
        }
        let replayableBody = try await Self.replayable(body)
        let (response, responseBody) = try await next(Self.authorized(request, token), replayableBody, baseURL)
        if operationID == "logout" && response.status == .noContent { await session.update(nil) }
        guard response.status == .unauthorized,
            let renewed = try await session.token(replacing: token, using: refresher)
        else { return (response, responseBody) }
        return try await next(Self.authorized(request, renewed), replayableBody, baseURL)
    }

    /// `request` with the bearer token.
    private static func authorized(_ request: HTTPRequest, _ token: String) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return request
    }

    /// A body that can be iterated twice: `body` itself, or its bytes when it can be read only once.
    private static func replayable(_ body: HTTPBody?) async throws -> HTTPBody? {
        guard let body, body.iterationBehavior == .single else { return body }
        let bytes = try await [UInt8](collecting: body, upTo: maximumReplayedBodyBytes)
        return HTTPBody(bytes, length: .known(Int64(bytes.count)), iterationBehavior: .multiple)
    }
}
