import ClassTodayCore
import Logging
import Foundation
import HTTPTypes
import Hummingbird

/// Resolves the request's bearer token to a ``Caller``. A request without a valid token goes on anonymous;
/// routes that need a user call ``AppRequestContext/requireCaller()``, which answers 401. The token of a suspended
/// user is answered with a 401 whose detail says the account is suspended (and until when), on every route.
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
        if let owner = try await sessions.owner(tokenHash: tokenHash, now: Date()) {
            if let suspension = owner.suspension { throw DomainError.unauthorized(suspension.message) }
            context.caller = Caller(userId: owner.userId, tokenHash: tokenHash, sessionId: owner.sessionId, isOperator: owner.isOperator,
                                    signedInAt: owner.signedInAt, emailVerified: owner.emailVerified)
            context.logger[metadataKey: "user_id"] = .string(owner.userId)
        }
        return try await next(request, context)
    }
}
