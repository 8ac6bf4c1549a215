import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// The web console's files as the server serves them. Its behaviour in a browser is tested by `scripts/browser-test`.
@Suite("Console")
struct ConsoleTests {
    @Test("/console is the HTML page, with a strict Content-Security-Policy and nosniff")
    func page() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.get, "/console")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            let policy = try #require(response.headers[.contentSecurityPolicy])
            let directives = Set(policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(directives.isSuperset(of: ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(String(buffer: response.body).contains(#"<script type="module" src="/console/app.js"></script>"#))
        }
    }

    @Test("the style sheet and modules are served with their media types; other names are a 404 problem")
    func files() async throws {
        try await TestServer.withRouter { client in
            let script = try await client.send(.get, "/console/app.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.contentSecurityPolicy] == ConsoleController.contentSecurityPolicy(tileOrigin: "https://tile.openstreetmap.org"))
            let style = try await client.send(.get, "/console/style.css")
            #expect(style.headers[.contentType] == "text/css; charset=utf-8")
            for missing in ["/console/missing.js", "/console/..%2Fopenapi.json", "/console/index.HTML"] {
                let response = try await client.send(.get, missing)
                #expect(response.status == .notFound, "\(missing)")
                _ = try response.problem()
            }
        }
    }

    @Test("the page names the tile server in a <meta>, and the policy allows images from that origin alone", arguments: [
        (TileServer.openStreetMap, "img-src 'self' data: https://tile.openstreetmap.org"),
        ("http://127.0.0.1:8999/tiles/{z}/{x}/{y}.png?style=a&b=1", "img-src 'self' data: http://127.0.0.1:8999"),
        ("HTTPS://Tiles.Example.COM/{z}/{x}/{y}.png", "img-src 'self' data: https://tiles.example.com"),
        ("", "img-src 'self' data:"),
    ])
    func tileServer(template: String, imageSources: String) async throws {
        try await TestServer.withRouter(configure: { $0.consoleTileURL = template }) { client in
            let page = try await client.send(.get, "/console")
            let escaped = template.replacingOccurrences(of: "&", with: "&amp;")
            #expect(String(buffer: page.body).contains(#"<meta name="classtoday-tile-url" content="\#(escaped)">"#))
            for response in [page, try await client.send(.get, "/console/app.js")] {
                let policy = try #require(response.headers[.contentSecurityPolicy])
                let directives = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(directives.filter { $0.hasPrefix("img-src") } == [imageSources])
                #expect(directives.contains("default-src 'none'") && directives.contains("connect-src 'self'"))
                #expect(response.headers[.referrerPolicy] == "no-referrer", "tile images alone ask for strict-origin")
            }
        }
    }

    @Test("a tile URL that is not an http(s) URL with a host and {z}, {x} and {y}, or that could break the policy, is refused",
          arguments: [
              "tile.openstreetmap.org/{z}/{x}/{y}.png", "ftp://tiles.example.com/{z}/{x}/{y}.png", "https://tiles.example.com/{z}/{x}.png",
              "https:///{z}/{x}/{y}.png", "https://user:pw@tiles.example.com/{z}/{x}/{y}.png", "https://tiles.example.com:99999/{z}/{x}/{y}.png",
              "https://tiles.example.com/{z}/{x}/{y}.png; script-src *", "https://tiles.example.com/{z}/{x}/{y}.png\" onload=\"x",
              "https://tiles.example.com/{z}/{x}/{y}.png,https://evil.example", "https://tiles.example.com/{z}/{x}/{y}.png 'unsafe-inline'",
          ])
    func invalidTileServer(template: String) throws {
        #expect(throws: ConfigurationError.self) { try TileServer(template: template) }
        var configuration = AppConfiguration()
        configuration.consoleTileURL = template
        #expect(throws: ConfigurationError.invalid(key: "console.tileUrl", reason: "")) {
            do { try configuration.validate() } catch ConfigurationError.invalid(let key, _) { throw ConfigurationError.invalid(key: key, reason: "") }
        }
    }

    @Test("every file the page and its modules name is served")
    func referencesResolve() throws {
        let assets = try ConsoleAssets.bundled()
        let page = try #require(assets.files[ConsoleAssets.pageName]).body
        var names = try Self.matches(of: #"(?:src|href)="/console/([^"]+)""#, in: String(buffer: page))
        for (name, asset) in assets.files where name.hasSuffix(".js") {
            names += try Self.matches(of: #"from "\./([^"]+)""#, in: String(buffer: asset.body))
        }
        #expect(names.count >= 8)
        #expect(names.filter { assets.files[$0] == nil } == [], "named but not served")
    }

    @Test("the scripts never write HTML from strings and never evaluate code")
    func scriptsUseTextOnly() throws {
        let assets = try ConsoleAssets.bundled()
        for (name, asset) in assets.files where name.hasSuffix(".js") || name.hasSuffix(".html") {
            let text = String(buffer: asset.body)
            for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "onclick=\"", "<script>", "style="] {
                #expect(!text.contains(forbidden), "\(name) uses \(forbidden)")
            }
        }
    }

    /// The first capture of every match of `pattern` in `text`.
    private static func matches(of pattern: String, in text: String) throws -> [String] {
        try text.matches(of: Regex(pattern)).compactMap { $0.output[1].substring.map(String.init) }
    }
}
