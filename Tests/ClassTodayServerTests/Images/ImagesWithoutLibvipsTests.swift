import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer
@testable import ClassTodayTestSupport

/// A server whose libvips cannot be loaded (its setting names a missing file): it starts, says so, takes uploads and
/// answers variant URLs with the original where every client shows it, else a 503 naming what is missing.
@Suite("Images without libvips")
struct ImagesWithoutLibvipsTests {
    /// Runs `body` against a server configured with a libvips that does not exist.
    static func withServer(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await TestServer.withRouter(configure: { $0.vipsLibraryPath = TestVips.missingLibrary }, body)
    }

    @Test("/health and /metrics say image variants are unavailable")
    func health() async throws {
        try await Self.withServer { client in
            let health = try await client.send(.get, "/health")
            #expect(health.status == .ok)
            let body = try health.jsonObject()
            #expect(body["status"] as? String == "ok" && body["imageVariants"] as? String == "unavailable")
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains("classtoday_image_variants_available 0"))
        }
    }

    @Test("a variant URL of a PNG or JPEG answers the original, not cached as the variant", arguments: ["png", "jpeg"])
    func originalInstead(format: String) async throws {
        let bytes = format == "png" ? TestImages.png(width: 12, height: 8) : TestImages.jpeg(width: 12, height: 8)
        let contentType = "image/\(format)"
        try await Self.withServer { client in
            let (token, _) = try await client.signup()
            let upload = try await client.upload(bytes, contentType: contentType, token: token)
            #expect(upload.status == .created)
            let image = try upload.jsonObject()
            let id = try #require(image["id"] as? String)
            let stored = try await client.send(.get, try #require(image["url"] as? String))
            for uri in ["/v1/images/\(id)/thumb", "/v1/images/\(id)?variant=card"] {
                let response = try await client.send(.get, uri, headers: [.accept: "image/webp"])
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == contentType)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.headers[.eTag] == stored.headers[.eTag])
                #expect(response.headers[.vary] == "Accept")
                #expect(Array(response.body.readableBytesView) == Array(stored.body.readableBytesView))
            }
        }
    }

    @Test("a HEIC's variant, and the HEIC for anyone but its uploader, is a 503 naming libvips, never a 500")
    func heic() async throws {
        try await Self.withServer { client in
            let (token, _) = try await client.signup()
            let upload = try await client.upload(TestImages.heic(width: 64, height: 48), contentType: "image/heic", token: token)
            #expect(upload.status == .created)
            let id = try #require(try upload.jsonObject()["id"] as? String)
            for uri in ["/v1/images/\(id)/thumb", "/v1/images/\(id)"] {
                let response = try await client.send(.get, uri)
                #expect(response.status == .serviceUnavailable)
                let detail = try #require(try response.problem()["detail"] as? String)
                #expect(detail.contains("libvips") && detail.contains(VipsLibrary.debianPackage))
            }
            let own = try await client.send(.get, "/v1/images/\(id)", token: token)
            #expect(own.status == .ok && own.headers[.contentType] == "image/heic")
        }
    }
}
