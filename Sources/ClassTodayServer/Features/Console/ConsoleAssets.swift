import Foundation
import NIOCore

/// The web console's files (HTML, CSS, JavaScript modules), read once from `Resources/console/` in the target's
/// resource bundle and kept in memory: the same bytes in debug and release builds and under `swift run`.
struct ConsoleAssets: Sendable {
    /// One file: its bytes and the media type it is served with.
    struct Asset: Sendable {
        /// The file's bytes.
        let body: ByteBuffer
        /// The `Content-Type` it is served with.
        let contentType: String
    }

    /// The console's page, served at `/console`.
    static let pageName = "index.html"

    /// The media types of the file kinds the console is made of; files of other kinds are not served.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// The files by name (`app.js`).
    let files: [String: Asset]

    /// Reads every file of a known kind directly inside `directory`.
    init(directory: URL) throws {
        var files: [String: Asset] = [:]
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
            guard let contentType = Self.contentTypes[url.pathExtension.lowercased()] else { continue }
            files[url.lastPathComponent] = Asset(body: ByteBuffer(bytes: try Data(contentsOf: url)), contentType: contentType)
        }
        self.files = files
    }

    /// The page's placeholder for the tile server, which ``showing(_:)`` fills.
    static let tileURLPlaceholder = #"<meta name="classtoday-tile-url" content="">"#

    private init(files: [String: Asset]) {
        self.files = files
    }

    /// The same files with the page's tile-server `<meta>` holding `tiles`' URL template (HTML-escaped), so that the
    /// console learns it without a request and without inline script.
    func showing(_ tiles: TileServer) -> ConsoleAssets {
        guard let page = files[Self.pageName] else { return self }
        let escaped = tiles.template.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
        let filled = String(buffer: page.body).replacingOccurrences(
            of: Self.tileURLPlaceholder, with: #"<meta name="classtoday-tile-url" content="\#(escaped)">"#)
        var files = files
        files[Self.pageName] = Asset(body: ByteBuffer(string: filled), contentType: page.contentType)
        return ConsoleAssets(files: files)
    }

    /// The console bundled with the server target.
    static func bundled() throws -> ConsoleAssets {
        guard let directory = Bundle.module.url(forResource: "console", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try ConsoleAssets(directory: directory)
    }
}
