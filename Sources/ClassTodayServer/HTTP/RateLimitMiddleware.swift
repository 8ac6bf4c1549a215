import HTTPTypes
import Hummingbird

/// Rate-limits `/v1` requests: signing in (signup, login, a provider, refresh) per client address with a strict limiter, everything else
/// per bearer token (or per address when anonymous) with the general one. Every `/v1` response, errors
/// included, carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; a refused request is
/// a 429 problem with `Retry-After`. Operational routes (`/health`, `/metrics`) are not limited.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The limiter for signup and login; nil turns their limiting off.
    let credentialLimiter: RateLimiter?
    /// The limiter for the rest of the API; nil turns it off.
    let apiLimiter: RateLimiter?

    /// Whether `path` signs in: every `/v1/auth/...` route but logout.
    private static func isCredentialPath(_ path: String) -> Bool {
        path.hasPrefix("/v1/auth/") && path != "/v1/auth/logout"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/v1/") else { return try await next(request, context) }
        let decision: RateLimiter.Decision?
        if Self.isCredentialPath(path) {
            decision = credentialLimiter?.take("ip:\(context.clientAddress)")
        } else {
            let key = BearerToken.from(request).map { "token:\(BearerToken.hash($0))" } ?? "ip:\(context.clientAddress)"
            decision = apiLimiter?.take(key)
        }
        guard let decision else { return try await next(request, context) }
        var headers: HTTPFields = [
            .rateLimitLimit: "\(decision.limit)",
            .rateLimitRemaining: "\(decision.remaining)",
            .rateLimitReset: "\(decision.resetSeconds)",
        ]
        guard decision.allowed else {
            headers[.retryAfter] = "\(decision.retryAfterSeconds)"
            return Problem(status: .tooManyRequests, detail: "too many requests; retry after \(decision.retryAfterSeconds) s")
                .response(headers: headers)
        }
        var response = try await next(request, context)
        for field in headers where response.headers[field.name] == nil {
            response.headers.append(field)
        }
        return response
    }
}
