import ClassTodayCore
import Logging
import Foundation
import HTTPTypes
import Hummingbird

/// Resolves the request's bearer token to a ``Caller``. A request without a valid token goes on anonymous;
/// routes that need a user call ``AppRequestContext/requireCaller()``, which answers 401.
struct TokenAuthenticator: RouterMiddleware {
    typealias Context = AppRequestContext

    /// Where sessions are looked up.
    let sessions: any SessionRepository

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = BearerToken.from(request) else {
            return try await next(request, context)
        }
        let tokenHash = BearerToken.hash(token)
        var context = context
        if let userId = try await sessions.userId(tokenHash: tokenHash, now: Date()) {
            context.caller = Caller(userId: userId, tokenHash: tokenHash)
            context.logger[metadataKey: "user_id"] = .string(userId)
        }
        return try await next(request, context)
    }
}
