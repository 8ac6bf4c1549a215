import HTTPTypes
import Hummingbird

/// Sets the largest request body the routes behind it decode.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The limit in bytes.
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.maxUploadSize = maxBytes
        return try await next(request, context)
    }
}
