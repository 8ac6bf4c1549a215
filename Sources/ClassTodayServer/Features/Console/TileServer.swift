import Foundation

/// The raster tile server of the web console's street map, read from the `console.tileUrl` setting: a URL template in
/// which `{z}`, `{x}` and `{y}` stand for the zoom level and the tile's column and row (the "slippy map" scheme that
/// OpenStreetMap, and most tile servers, use). The console's Content-Security-Policy allows images from its origin only.
struct TileServer: Sendable, Equatable {
    /// OpenStreetMap's standard tiles, the default (their usage policy asks for the attribution the console shows and
    /// for a Referer, which the console's tile images send).
    static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    /// The URL template; empty when the console draws its plain map without tiles.
    let template: String
    /// `scheme://host[:port]` of the template, lowercased; nil without a tile server.
    let origin: String?

    /// Characters a template may hold: those of a URL, less the ones that could end a CSP source or an HTML attribute
    /// (`;`, `,`, quotes, spaces) and parentheses.
    private static let allowedCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&*+=%{}")

    /// Reads a template; throws a ``ConfigurationError`` on `console.tileUrl` unless it is empty or an `http` or
    /// `https` URL with a host and all three placeholders.
    init(template: String) throws {
        self.template = template
        guard !template.isEmpty else {
            origin = nil
            return
        }
        func invalid(_ reason: String) -> ConfigurationError { .invalid(key: "console.tileUrl", reason: reason) }
        guard template.allSatisfy(Self.allowedCharacters.contains) else {
            throw invalid("must be a URL without spaces, quotes, commas, semicolons or parentheses")
        }
        guard let schemeEnd = template.range(of: "://") else { throw invalid("must start with http:// or https://") }
        let scheme = template[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw invalid("must start with http:// or https://") }
        let rest = template[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = host.first, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }),
              host.count == 1 || (host[1].count <= 5 && Int(host[1]).map { (1...65535).contains($0) } == true)
        else {
            throw invalid("must name a host (and port), without user or password")
        }
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            throw invalid("must contain {z}, {x} and {y}")
        }
        origin = "\(scheme)://\(authority.lowercased())"
    }
}
