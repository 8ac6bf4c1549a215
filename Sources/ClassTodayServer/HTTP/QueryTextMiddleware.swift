import ClassTodayCore
import Hummingbird

extension FieldError {
    /// What a field or query parameter holding the NUL character (U+0000) is told: no stored text can hold it
    /// (PostgreSQL's text refuses it, and SQLite's text reads end at it).
    static let nulCharacter = "must not contain the NUL character (U+0000)"
}

/// Refuses a request whose query holds the NUL character (`%00`) in a parameter's value with a 422 naming the
/// parameter, before any route binds it to a statement (names are read as written, not decoded). JSON bodies are checked as they are decoded
/// (``APIJSONDecoder``); a request target cannot hold the raw byte (the HTTP parser refuses it).
struct QueryTextMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let query = request.uri.query, query.contains("%00"),
           let parameter = request.uri.queryParameters.first(where: { $0.value.utf8.contains(0) }) {
            throw DomainError.invalid(String(parameter.key), FieldError.nulCharacter)
        }
        return try await next(request, context)
    }
}
