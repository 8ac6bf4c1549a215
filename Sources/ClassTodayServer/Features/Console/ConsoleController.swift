import ClassTodayCore
import HTTPTypes
import Hummingbird

/// Serves the web console: its page at `/console` and its style sheet and JavaScript modules at `/console/{file}`.
/// Every answer carries a strict Content-Security-Policy (scripts, styles, images and connections from this origin
/// only: no inline script, no `eval`, no framing), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
struct ConsoleController {
    /// The console's files; a file that is not among them is a 404.
    let assets: ConsoleAssets

    /// The Content-Security-Policy of every console response.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
        "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// Adds the console's routes at the top level.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("console", use: page)
        router.get("console/{file}", use: file)
    }

    /// `GET /console`: the page.
    @Sendable func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        try response(for: ConsoleAssets.pageName)
    }

    /// `GET /console/{file}`: a style sheet, module or icon by its name; any other name is a 404 problem.
    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        try response(for: try context.parameters.require("file"))
    }

    private func response(for name: String) throws -> Response {
        guard let asset = assets.files[name] else { throw DomainError.notFound("console file") }
        return Response(
            status: .ok,
            headers: [
                .contentType: asset.contentType,
                .cacheControl: "no-cache",
                .contentSecurityPolicy: Self.contentSecurityPolicy,
                .xContentTypeOptions: "nosniff",
                .referrerPolicy: "no-referrer",
            ],
            body: .init(byteBuffer: asset.body))
    }
}

extension HTTPField.Name {
    /// `Referrer-Policy`.
    static let referrerPolicy = Self("Referrer-Policy")!
}
