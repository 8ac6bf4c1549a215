import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import ClassTodayServer
@testable import ClassTodayTestSupport

@Suite("Image variants", .enabled(if: TestVips.isAvailable, "needs libvips (apt-get install libvips42, or CLASSTODAY_IMAGES_VIPS_LIBRARY naming it)"))
struct ImageVariantTests {
    /// Uploads `bytes` as `token`'s user and returns the new image's id.
    static func upload(_ client: some TestClientProtocol, _ bytes: [UInt8], token: String) async throws -> String {
        let response = try await client.upload(bytes, contentType: "application/octet-stream", token: token)
        #expect(response.status == .created)
        return try #require(try response.jsonObject()["id"] as? String)
    }

    /// The decoded body of a `200` answer of `contentType`.
    static func decoded(_ response: TestResponse, contentType: String) throws -> RealImages.Decoded {
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == contentType)
        return try RealImages.decode(Array(response.body.readableBytesView))
    }

    @Test("each variant fits its box, never enlarges, keeps the aspect ratio, in JPEG by default and WebP when accepted",
          arguments: [(ImageVariant.thumb, 320, 240), (.card, 800, 600), (.full, 1200, 900)])
    func sizes(variant: ImageVariant, width: Int, height: Int) async throws {
        let photo = try RealImages.photo(width: 1200, height: 900)
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try await Self.upload(client, photo, token: token)
            let jpeg = try Self.decoded(try await client.send(.get, "/v1/images/\(id)/\(variant.rawValue)"), contentType: "image/jpeg")
            #expect((jpeg.width, jpeg.height) == (width, height))
            #expect(jpeg.bands == 3 && jpeg.isSRGB8)
            let webpResponse = try await client.send(
                .get, "/v1/images/\(id)?variant=\(variant.rawValue)", headers: [.accept: "image/avif,image/webp,*/*;q=0.8"])
            #expect(Array(webpResponse.body.readableBytesView.prefix(4)) == Array("RIFF".utf8))
            let webp = try Self.decoded(webpResponse, contentType: "image/webp")
            #expect((webp.width, webp.height) == (width, height))
            let refused = try await client.send(.get, "/v1/images/\(id)/\(variant.rawValue)", headers: [.accept: "image/webp;q=0, image/*"])
            #expect(refused.headers[.contentType] == "image/jpeg")
        }
    }

    @Test("the EXIF orientation is applied and every metadata item is removed", arguments: ["jpeg", "webp"])
    func orientationAndMetadata(encoding: String) async throws {
        // Stored 400 x 200, red on the left; orientation 6 shows it turned a quarter clockwise: red on top.
        let photo = try RealImages.photo(width: 400, height: 200, orientation: 6)
        let original = try RealImages.decode(photo)
        #expect(original.metadata.contains("exif-data") && original.metadata.contains("xmp-data"), "the input carries metadata")
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try await Self.upload(client, photo, token: token)
            let response = try await client.send(.get, "/v1/images/\(id)/thumb", headers: [.accept: "image/\(encoding)"])
            let bytes = Array(response.body.readableBytesView)
            let thumb = try Self.decoded(response, contentType: "image/\(encoding)")
            #expect((thumb.width, thumb.height) == (160, 320))
            let top = try #require(thumb.pixels["top"]), bottom = try #require(thumb.pixels["bottom"])
            #expect(top[0] > 200 && top[2] < 60, "red on top: \(top)")
            #expect(bottom[2] > 200 && bottom[0] < 60, "blue below: \(bottom)")
            #expect(thumb.metadata.isEmpty, "\(thumb.metadata)")
            #expect(bytes.firstRange(of: Array(RealImages.make.utf8)) == nil)
            #expect(bytes.firstRange(of: Array("Exif".utf8)) == nil && bytes.firstRange(of: Array("xmpmeta".utf8)) == nil)
        }
    }

    @Test("grey and transparent images become 8-bit sRGB; JPEG flattens transparency onto white, WebP keeps it")
    func colourAndAlpha() async throws {
        let grey = try RealImages.flat(width: 64, height: 48, bands: 1, value: 90, format: "png")
        let transparent = try RealImages.flat(width: 64, height: 48, bands: 4, value: 10, format: "png")
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let greyId = try await Self.upload(client, grey, token: token)
            let greyThumb = try Self.decoded(try await client.send(.get, "/v1/images/\(greyId)/thumb"), contentType: "image/jpeg")
            #expect(greyThumb.bands == 3 && greyThumb.isSRGB8)
            let clearId = try await Self.upload(client, transparent, token: token)
            let flattened = try Self.decoded(try await client.send(.get, "/v1/images/\(clearId)/thumb"), contentType: "image/jpeg")
            #expect(flattened.bands == 3)
            #expect(try #require(flattened.pixels["top"]).allSatisfy { $0 > 245 }, "white")
            let webp = try Self.decoded(
                try await client.send(.get, "/v1/images/\(clearId)/thumb", headers: [.accept: "image/webp"]), contentType: "image/webp")
            #expect(webp.bands == 4)
            #expect(try #require(webp.pixels["top"]).last == 0, "still transparent")
        }
    }

    @Test("HEIC originals go to their uploader only; everyone else gets the full variant in JPEG or WebP")
    func heic() async throws {
        let photo = try RealImages.photo(width: 640, height: 480, format: "heic")
        try await TestServer.withRouter { client in
            let (owner, _) = try await client.signup()
            let (other, _) = try await client.signup()
            let upload = try await client.upload(photo, contentType: "image/heic", token: owner)
            let json = try upload.jsonObject()
            #expect(json["contentType"] as? String == "image/heic")
            let id = try #require(json["id"] as? String)
            let variants = try #require(json["variants"] as? [String: String])
            #expect(variants == ["thumb": "/v1/images/\(id)/thumb", "card": "/v1/images/\(id)/card", "full": "/v1/images/\(id)/full"])

            let own = try await client.send(.get, "/v1/images/\(id)", token: owner)
            #expect(own.status == .ok && own.headers[.contentType] == "image/heic")
            #expect(own.body.readableBytes == photo.count)
            #expect(own.headers[.cacheControl]?.hasPrefix("private") == true)

            for token in [other, nil] {
                let shown = try await client.send(.get, "/v1/images/\(id)", token: token)
                let full = try Self.decoded(shown, contentType: "image/jpeg")
                #expect((full.width, full.height) == (640, 480))
                #expect(shown.headers[.vary]?.contains("Authorization") == true)
            }
            let webp = try await client.send(.get, "/v1/images/\(id)", token: other, headers: [.accept: "image/webp"])
            #expect(try Self.decoded(webp, contentType: "image/webp").width == 640)
            let card = try Self.decoded(try await client.send(.get, url(variants["card"])), contentType: "image/jpeg")
            #expect((card.width, card.height) == (640, 480), "never enlarged")
            let thumb = try Self.decoded(try await client.send(.get, url(variants["thumb"])), contentType: "image/jpeg")
            #expect((thumb.width, thumb.height) == (320, 240))
        }
    }

    private func url(_ value: String?) throws -> String { try #require(value) }

    @Test("variants carry an ETag per encoding, immutable caching and Vary: Accept; If-None-Match is a 304")
    func caching() async throws {
        let photo = try RealImages.photo(width: 100, height: 80)
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try await Self.upload(client, photo, token: token)
            let jpeg = try await client.send(.get, "/v1/images/\(id)/card")
            let webp = try await client.send(.get, "/v1/images/\(id)/card", headers: [.accept: "image/webp"])
            let jpegTag = try #require(jpeg.headers[.eTag]), webpTag = try #require(webp.headers[.eTag])
            #expect(jpegTag != webpTag)
            #expect(jpeg.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(jpeg.headers[.vary] == "Accept")
            #expect(jpeg.headers[.contentLength] == "\(jpeg.body.readableBytes)")
            let cached = try await client.send(.get, "/v1/images/\(id)/card", headers: [.ifNoneMatch: jpegTag])
            #expect(cached.status == .notModified && cached.body.readableBytes == 0)
            let other = try await client.send(.get, "/v1/images/\(id)/card", headers: [.ifNoneMatch: webpTag])
            #expect(other.status == .ok)
            let again = try await client.send(.get, "/v1/images/\(id)?variant=card")
            #expect(again.headers[.eTag] == jpegTag && Array(again.body.readableBytesView) == Array(jpeg.body.readableBytesView))
            let head = try await client.send(.head, "/v1/images/\(id)/thumb")
            #expect(head.status == .ok && head.headers[.contentType] == "image/jpeg")
        }
    }

    @Test("an unknown variant is a 404 in the path and a 422 naming `variant` in the query")
    func unknownVariant() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try await Self.upload(client, try RealImages.photo(width: 10, height: 10), token: token)
            let path = try await client.send(.get, "/v1/images/\(id)/huge")
            #expect(path.status == .notFound)
            _ = try path.problem()
            #expect(try await client.send(.get, "/v1/images/\(id)?variant=huge").problemFields() == ["variant"])
            #expect(try await client.send(.get, "/v1/images/01ZZZZZZZZZZZZZZZZZZZZZZZZ/thumb").status == .notFound)
        }
    }

    @Test("a decompression bomb is refused at upload from its header (413 naming `file`)")
    func pixelLimit() async throws {
        try await TestServer.withRouter(configure: { $0.maxImagePixels = 1_000_000 }) { client in
            let (token, _) = try await client.signup()
            // A few hundred bytes that declare 30000 x 30000 pixels (2.7 GB decoded).
            let bomb = try await client.upload(TestImages.png(width: 30000, height: 30000), contentType: "image/png", token: token)
            #expect(bomb.status == .contentTooLarge)
            #expect(try bomb.problemFields() == ["file"])
            let justOver = try await client.upload(try RealImages.photo(width: 1001, height: 1000), token: token)
            #expect(justOver.status == .contentTooLarge)
            #expect(try await client.upload(try RealImages.photo(width: 1000, height: 1000), token: token).status == .created)
        }
    }

    @Test("an image accepted by its headers that libvips cannot decode gets a 422 for its variants, and the server goes on")
    func undecodable() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            // Structurally a HEIC file, with no coded picture inside.
            let id = try await Self.upload(client, TestImages.heic(width: 64, height: 48), token: token)
            let response = try await client.send(.get, "/v1/images/\(id)/thumb")
            #expect(response.status == .unprocessableContent)
            _ = try response.problem()
            let fine = try await Self.upload(client, try RealImages.photo(width: 30, height: 20), token: token)
            #expect(try await client.send(.get, "/v1/images/\(fine)/thumb").status == .ok)
        }
    }

    @Test("a truncated photo's variants are a 422, never a grey-padded render, and nothing is kept or cached", arguments: [
        "jpeg", "png",
    ])
    func truncated(format: String) async throws {
        let whole = try RealImages.photo(width: 800, height: 600, format: format)
        let cut = Array(whole.prefix(whole.count * 4 / 10))
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try await Self.upload(client, cut, token: token)
            for _ in 0..<2 {
                let response = try await client.send(.get, "/v1/images/\(id)/card")
                #expect(response.status == .unprocessableContent)
                #expect(response.headers[.cacheControl] == nil)
                #expect(response.headers[.eTag] == nil)
                _ = try response.problem()
            }
            let fine = try await Self.upload(client, whole, token: token)
            #expect(try await client.send(.get, "/v1/images/\(fine)/card").status == .ok)
        }
    }

    @Test("identical uploads share their variants; deleting the last record removes original and variants")
    func sharedAndRemoved() async throws {
        let photo = try RealImages.photo(width: 90, height: 60)
        try await TestServer.withEnvironment(.router) { environment, client in
            let root = environment.configuration.imagesDirectory
            let (first, _) = try await client.signup()
            let (second, _) = try await client.signup()
            let a = try await Self.upload(client, photo, token: first)
            let b = try await Self.upload(client, photo, token: second)
            #expect(try await client.send(.get, "/v1/images/\(a)/thumb").status == .ok)
            #expect(try await client.send(.get, "/v1/images/\(b)/thumb").status == .ok)
            #expect(try await client.send(.get, "/v1/images/\(b)/thumb", headers: [.accept: "image/webp"]).status == .ok)
            #expect(Self.variantFiles(in: root).count == 2, "one JPEG and one WebP thumb for both records")
            #expect(try await client.send(.delete, "/v1/images/\(a)", token: first).status == .noContent)
            #expect(Self.variantFiles(in: root).count == 2, "the other record still shows them")
            #expect(try await client.send(.delete, "/v1/images/\(b)", token: second).status == .noContent)
            #expect(Self.variantFiles(in: root).isEmpty)
            #expect(ImagesTests.storedFiles(in: root).isEmpty)
        }
    }

    static func variantFiles(in root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if !path.hasPrefix("tmp"), path.hasSuffix(".jpeg") || path.hasSuffix(".webp") { files.append(path) }
        }
        return files
    }

    @Test("class, user and message objects carry the variant URLs beside the image URLs")
    func links() async throws {
        try await TestServer.withRouter { client in
            let (seller, _) = try await client.signup()
            let (buyer, _) = try await client.signup()
            let image = try await Self.upload(client, TestImages.png(width: 4, height: 4), token: seller)
            let expected = ["thumb": "/v1/images/\(image)/thumb", "card": "/v1/images/\(image)/card", "full": "/v1/images/\(image)/full"]
            let me = try await client.send(.patch, "/v1/me", json: ["profileImageId": image], token: seller).jsonObject()
            #expect(me["profileImageVariants"] as? [String: String] == expected)
            let created = try await client.createClass(token: seller, ["imageIds": [image]])
            let images = try #require(created["images"] as? [[String: Any]])
            #expect(images.first?["url"] as? String == "/v1/images/\(image)")
            #expect(images.first?["variants"] as? [String: String] == expected)
            let writer = try #require(created["writer"] as? [String: Any])
            #expect(writer["profileImageVariants"] as? [String: String] == expected)
            let classId = try #require(created["id"] as? String)
            let profile = try await client.send(.get, "/v1/users/\(try #require(writer["id"] as? String))").jsonObject()
            #expect(profile["profileImageVariants"] as? [String: String] == expected)

            let room = try await client.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer).jsonObject()
            let roomId = try #require(room["id"] as? String)
            let buyerImage = try await Self.upload(client, TestImages.png(width: 5, height: 5), token: buyer)
            let message = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages",
                                                json: ["clientId": "c-1", "imageId": buyerImage], token: buyer).jsonObject()
            #expect(message["imageUrl"] as? String == "/v1/images/\(buyerImage)")
            #expect((message["imageVariants"] as? [String: String])?["thumb"] == "/v1/images/\(buyerImage)/thumb")
            let text = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": "c-2", "text": "안녕"], token: buyer)
            #expect(try text.jsonObject()["imageVariants"] is NSNull)
            let buyerMe = try await client.send(.get, "/v1/me", token: buyer).jsonObject()
            #expect(buyerMe["profileImageVariants"] is NSNull)
        }
    }
}
