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
            #expect(script.headers[.contentSecurityPolicy] == ConsoleController.contentSecurityPolicy)
            let style = try await client.send(.get, "/console/style.css")
            #expect(style.headers[.contentType] == "text/css; charset=utf-8")
            for missing in ["/console/missing.js", "/console/..%2Fopenapi.json", "/console/index.HTML"] {
                let response = try await client.send(.get, missing)
                #expect(response.status == .notFound, "\(missing)")
                _ = try response.problem()
            }
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
