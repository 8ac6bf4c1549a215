import ClassTodayCore
import HTTPTypes
import Hummingbird

/// Serves the web console: its page at `/console` and its style sheet and JavaScript modules at `/console/{file}`.
/// Every answer carries a strict Content-Security-Policy (scripts, styles, images and connections from this origin
/// only, and images from the map's tile server: no inline script, no `eval`, no framing), `X-Content-Type-Options:
/// nosniff` and `Referrer-Policy: no-referrer` (the tile images alone ask for `strict-origin`, as OpenStreetMap's tile
/// policy wants a Referer).
struct ConsoleController {
    /// The console's files, the page naming the tile server; a file that is not among them is a 404.
    let assets: ConsoleAssets
    /// The Content-Security-Policy of every console response.
    let contentSecurityPolicy: String

    /// Serves `assets` with the street map drawn from `tiles`.
    init(assets: ConsoleAssets, tiles: TileServer) {
        self.assets = assets.showing(tiles)
        contentSecurityPolicy = Self.contentSecurityPolicy(tileOrigin: tiles.origin)
    }

    /// The policy: everything from this origin only, and images also from `tileOrigin` when there is one.
    static func contentSecurityPolicy(tileOrigin: String?) -> String {
        let images = ["img-src 'self' data:", tileOrigin].compactMap { $0 }.joined(separator: " ")
        return [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", images, "connect-src 'self'",
            "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

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
                .contentSecurityPolicy: contentSecurityPolicy,
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
