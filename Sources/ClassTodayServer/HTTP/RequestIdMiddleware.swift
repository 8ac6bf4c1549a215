import ClassTodayCore
import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id: the client's `X-Request-Id` when it is a short token, else a new one.
/// The id is put in the logger's metadata and echoed in the response's `X-Request-Id` header.
struct RequestIdMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = request.headers[.requestId].flatMap { Self.isAcceptable($0) ? $0 : nil } ?? Identifier.make()
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        var response = try await next(request, context)
        response.headers[.requestId] = id
        return response
    }

    private static func isAcceptable(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`.
    static let requestId = Self("X-Request-Id")!
    /// `Link`.
    static let link = Self("Link")!
    /// `RateLimit-Limit`.
    static let rateLimitLimit = Self("RateLimit-Limit")!
    /// `RateLimit-Remaining`.
    static let rateLimitRemaining = Self("RateLimit-Remaining")!
    /// `RateLimit-Reset`.
    static let rateLimitReset = Self("RateLimit-Reset")!
}
