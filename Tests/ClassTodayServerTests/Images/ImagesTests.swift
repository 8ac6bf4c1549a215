import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import ClassTodayServer
@testable import ClassTodayTestSupport

@Suite("Images")
struct ImagesTests {
    @Test("each supported format uploads with its dimensions and content type", arguments: [
        (TestImages.jpeg(width: 40, height: 30), "image/jpeg", 40, 30),
        (TestImages.png(width: 17, height: 9), "image/png", 17, 9),
        (TestImages.webpLossy(width: 64, height: 48), "image/webp", 64, 48),
        (TestImages.webpLossless(width: 3, height: 5), "image/webp", 3, 5),
        (TestImages.webpExtended(width: 300, height: 200), "image/webp", 300, 200),
        (TestImages.heic(width: 4032, height: 3024), "image/heic", 4032, 3024),
        (TestImages.heif(width: 10, height: 20), "image/heif", 10, 20),
    ] as [([UInt8], String, Int, Int)])
    func formats(bytes: [UInt8], contentType: String, width: Int, height: Int) async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            // The declared type is deliberately generic: the format is decided by the bytes.
            let response = try await client.upload(bytes, contentType: "application/octet-stream", token: token)
            #expect(response.status == .created)
            let json = try response.jsonObject()
            #expect(json["contentType"] as? String == contentType)
            #expect(json["width"] as? Int == width)
            #expect(json["height"] as? Int == height)
            let url = try #require(json["url"] as? String)
            // The uploader's own token: other callers get a HEIC/HEIF as its JPEG variant.
            let download = try await client.send(.get, url, token: token)
            #expect(download.status == .ok)
            #expect(download.headers[.contentType] == contentType)
            #expect(download.body.readableBytes == json["bytes"] as? Int)
        }
    }

    @Test("multipart uploads read the file part")
    func multipart() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let boundary = "----classtoday-test-boundary"
            var body = ByteBuffer()
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n기타 수업 사진\r\n")
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.png\"\r\nContent-Type: image/png\r\n\r\n")
            body.writeBytes(TestImages.png(width: 12, height: 34))
            body.writeString("\r\n--\(boundary)--\r\n")
            let response = try await client.execute(
                uri: "/v1/images", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "multipart/form-data; boundary=\(boundary)"], body: body)
            #expect(response.status == .created)
            let json = try response.jsonObject()
            #expect(json["contentType"] as? String == "image/png")
            #expect(json["width"] as? Int == 12 && json["height"] as? Int == 34)

            var noFile = ByteBuffer()
            noFile.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--\(boundary)--\r\n")
            let missing = try await client.execute(
                uri: "/v1/images", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "multipart/form-data; boundary=\(boundary)"], body: noFile)
            #expect(try missing.problemFields() == ["file"])
        }
    }

    @Test("a text file named like an image is 415; a non-image content type is 415")
    func notAnImage() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let text = Array("this is not really a photo.jpg\n".utf8)
            let renamed = try await client.upload(text, contentType: "image/jpeg", token: token)
            #expect(renamed.status == .unsupportedMediaType)
            _ = try renamed.problem()
            let gif = Array("GIF89a\u{01}\u{00}\u{01}\u{00}".utf8)
            #expect(try await client.upload(gif, contentType: "image/gif", token: token).status == .unsupportedMediaType)
            let json = try await client.upload(TestImages.png(), contentType: "application/json", token: token)
            #expect(json.status == .unsupportedMediaType)
        }
    }

    @Test("uploads over the limit are 413 and leave nothing behind")
    func sizeLimit() async throws {
        try await TestServer.withRouter(configure: { $0.maxImageBytes = 2048 }) { client in
            let (token, _) = try await client.signup()
            let big = TestImages.jpeg(width: 64, height: 64, scanData: [UInt8](repeating: 0x11, count: 4096))
            let response = try await client.upload(big, token: token)
            #expect(response.status == .contentTooLarge)
            _ = try response.problem()
            #expect(try await client.upload(TestImages.png(), contentType: "image/png", token: token).status == .created)
        }
    }

    @Test("GPS is removed from JPEGs while orientation and other EXIF survive")
    func gpsRemoved() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let original = TestImages.jpeg(width: 20, height: 10, withGPS: true, orientation: 6)
            #expect(JPEGLocationScrubber.containsLocationMetadata(original))
            let json = try await client.upload(original, token: token).jsonObject()
            let stored = try await client.send(.get, try #require(json["url"] as? String))
            let bytes = Array(stored.body.readableBytesView)
            #expect(!JPEGLocationScrubber.containsLocationMetadata(bytes))
            #expect(bytes.firstRange(of: Array(TestImages.make.utf8)) != nil, "Make survives")
            #expect(bytes.firstRange(of: [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]) != nil
                    || bytes.firstRange(of: [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00]) != nil, "Orientation 6 survives")
            #expect(ImageInspector.inspect(bytes) == ImageInfo(format: .jpeg, width: 20, height: 10))
        }
    }

    /// A PNG or WebP (by `format`) whose EXIF carries GPS, with an XMP packet naming a place.
    static func locatedOriginal(_ format: String) -> [UInt8] {
        let xmp = Array(TestImages.xmpPacket.utf8)
        if format == "png" {
            return TestImages.png(inserting: [
                TestImages.pngChunk("eXIf", TestImages.exifTIFF(width: 8, height: 6, withGPS: true, orientation: 6, byteOrder: .littleEndian)),
                TestImages.pngChunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + xmp),
            ])
        }
        return TestImages.webpExtended(metadata: [
            ("EXIF", TestImages.exifTIFF(width: 8, height: 6, withGPS: true, orientation: 6, byteOrder: .bigEndian)), ("XMP ", xmp),
        ])
    }

    @Test("GPS and XMP are removed from PNG and WebP originals too; other EXIF survives", arguments: ["png", "webp"])
    func gpsRemovedFromPNGAndWebP(format: String) async throws {
        let original = Self.locatedOriginal(format), contentType = "image/\(format)"
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let latitudes = [TestImages.latitudeBytes(.littleEndian), TestImages.latitudeBytes(.bigEndian)]
            #expect(latitudes.contains { original.firstRange(of: $0) != nil })
            let json = try await client.upload(original, contentType: contentType, token: token).jsonObject()
            let stored = try await client.send(.get, try #require(json["url"] as? String))
            #expect(stored.headers[.contentType] == contentType)
            let bytes = Array(stored.body.readableBytesView)
            #expect(!latitudes.contains { bytes.firstRange(of: $0) != nil }, "GPS latitude gone")
            #expect(bytes.firstRange(of: Array("GPSLatitude".utf8)) == nil, "XMP gone")
            #expect(bytes.firstRange(of: Array(TestImages.make.utf8)) != nil, "Make survives")
            #expect(ImageInspector.inspect(bytes) == ImageInspector.inspect(original))
        }
    }

    @Test("downloads carry a strong ETag and immutable caching; If-None-Match answers 304; HEAD works")
    func caching() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let url = try #require(try await client.upload(TestImages.png(), contentType: "image/png", token: token).jsonObject()["url"] as? String)
            let first = try await client.send(.get, url)
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.count == 66)
            #expect(first.headers[.cacheControl]?.contains("immutable") == true)
            let cached = try await client.send(.get, url, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
            let changed = try await client.send(.get, url, headers: [.ifNoneMatch: "\"something-else\""])
            #expect(changed.status == .ok)
            let head = try await client.send(.head, url)
            #expect(head.status == .ok)
            #expect(head.headers[.eTag] == etag)
        }
    }

    @Test("ids that are not well formed are 404, never a path on disk")
    func hostileIds() async throws {
        try await TestServer.withRouter { client in
            for id in ["..%2F..%2Fclasstoday.sqlite", "%2Fetc%2Fpasswd", "tmp", "01ZZZZZZZZZZZZZZZZZZZZZZZZ", "abc"] {
                let response = try await client.send(.get, "/v1/images/\(id)")
                #expect(response.status == .notFound, "\(id)")
            }
        }
    }

    @Test("the same bytes uploaded twice are stored once")
    func deduplication() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        let app = buildApplication(environment, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (first, _) = try await client.signup()
            let (second, _) = try await client.signup()
            let bytes = TestImages.png(width: 5, height: 5)
            let a = try await client.upload(bytes, contentType: "image/png", token: first).jsonObject()
            let b = try await client.upload(bytes, contentType: "image/png", token: second).jsonObject()
            #expect(a["id"] as? String != b["id"] as? String)
            #expect(Self.storedFiles(in: configuration.imagesDirectory).count == 1)
            _ = try await client.upload(TestImages.png(width: 6, height: 5), contentType: "image/png", token: first)
            #expect(Self.storedFiles(in: configuration.imagesDirectory).count == 2)
        }
    }

    @Test("only the uploader deletes an image; the file goes when no record names it")
    func deletion() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        try await buildApplication(environment, logger: Logger(label: "test")).test(.router) { client in
            let (owner, _) = try await client.signup()
            let (other, _) = try await client.signup()
            let bytes = TestImages.png(width: 7, height: 7)
            let mine = try #require(try await client.upload(bytes, contentType: "image/png", token: owner).jsonObject()["id"] as? String)
            let theirs = try #require(try await client.upload(bytes, contentType: "image/png", token: other).jsonObject()["id"] as? String)
            #expect(try await client.send(.delete, "/v1/images/\(mine)", token: other).status == .forbidden)
            #expect(try await client.send(.delete, "/v1/images/\(mine)").status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/images/\(mine)", token: owner).status == .noContent)
            #expect(try await client.send(.get, "/v1/images/\(mine)").status == .notFound)
            #expect(try await client.send(.get, "/v1/images/\(theirs)").status == .ok, "shared bytes stay for the other record")
            #expect(Self.storedFiles(in: configuration.imagesDirectory).count == 1)
            #expect(try await client.send(.delete, "/v1/images/\(theirs)", token: other).status == .noContent)
            #expect(Self.storedFiles(in: configuration.imagesDirectory).isEmpty)
        }
    }

    @Test("a deleted image leaves the classes that showed it, the others kept in order, in a class's page and in search pages")
    func deletedImageLeavesClasses() async throws {
        try await TestServer.withRouter { client in
            let (owner, _) = try await client.signup()
            var uploaded: [String] = []
            for size in 1...3 {
                let image = try await client.upload(TestImages.png(width: size, height: 1), contentType: "image/png", token: owner)
                uploaded.append(try #require(try image.jsonObject()["id"] as? String))
            }
            let (first, second, third) = (uploaded[0], uploaded[1], uploaded[2])
            let both = try #require(try await client.createClass(token: owner, ["imageIds": [third, second, first]])["id"] as? String)
            let only = try #require(try await client.createClass(token: owner, ["name": "우쿨렐레 레슨", "imageIds": [second]])["id"] as? String)
            let untouched = try #require(try await client.createClass(token: owner, ["name": "드럼 레슨", "imageIds": [first]])["id"] as? String)
            #expect(try await client.send(.delete, "/v1/images/\(second)", token: owner).status == .noContent)

            func imageIds(_ item: [String: Any]) -> [String]? {
                (item["images"] as? [[String: Any]])?.map { $0["id"] as? String ?? "" }
            }
            let expected = [both: [third, first], only: [], untouched: [first]]
            for (classId, images) in expected {
                let page = try await client.send(.get, "/v1/classes/\(classId)").jsonObject()
                #expect(imageIds(page) == images, "class \(classId)")
            }
            let nearby = try await client.send(.get, "/v1/classes?lat=37.4842&lon=126.9297&radius=1000").jsonObject()
            let items = try #require(nearby["items"] as? [[String: Any]])
            #expect(items.count == 3)
            for item in items {
                #expect(imageIds(item) == expected[item["id"] as? String ?? ""], "nearest-first page")
            }
            let recent = try #require(try await client.send(.get, "/v1/classes").jsonObject()["items"] as? [[String: Any]])
            #expect(recent.map { imageIds($0) ?? ["?"] } == [[first], [], [third, first]], "newest first")
        }
    }

    @Test("classes and profiles accept only the caller's own images, in order")
    func attachingImages() async throws {
        try await TestServer.withRouter { client in
            let (owner, _) = try await client.signup()
            let (other, _) = try await client.signup()
            let first = try #require(try await client.upload(TestImages.png(width: 1, height: 1), contentType: "image/png", token: owner).jsonObject()["id"] as? String)
            let second = try #require(try await client.upload(TestImages.png(width: 2, height: 2), contentType: "image/png", token: owner).jsonObject()["id"] as? String)
            let foreign = try #require(try await client.upload(TestImages.png(width: 3, height: 3), contentType: "image/png", token: other).jsonObject()["id"] as? String)

            let created = try await client.createClass(token: owner, ["imageIds": [second, first]])
            let images = try #require(created["images"] as? [[String: Any]])
            #expect(images.map { $0["id"] as? String } == [second, first])
            #expect(images.first?["url"] as? String == "/v1/images/\(second)")

            let stolen = try await client.send(.post, "/v1/classes", json: type(of: client).classBody(["imageIds": [foreign]]), token: owner)
            #expect(try stolen.problemFields() == ["imageIds"])
            let profile = try await client.send(.patch, "/v1/me", json: ["profileImageId": foreign], token: owner)
            #expect(try profile.problemFields() == ["profileImageId"])
            let ownProfile = try await client.send(.patch, "/v1/me", json: ["profileImageId": first], token: owner)
            #expect(try ownProfile.jsonObject()["profileImageUrl"] as? String == "/v1/images/\(first)")
            let cleared = try await client.send(.patch, "/v1/me", json: ["profileImageId": NSNull()], token: owner)
            #expect(try cleared.jsonObject()["profileImageUrl"] is NSNull)
        }
    }

    @Test("garbage collection removes unattached uploads after the grace period and images no longer referenced")
    func garbageCollection() async throws {
        let configuration = try TestServer.configuration { $0.unattachedImageGrace = .seconds(3600) }
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        try await buildApplication(environment, logger: Logger(label: "test")).test(.router) { client in
            let (token, _) = try await client.signup()
            let upload: (Int) async throws -> String = { size in
                try #require(try await client.upload(TestImages.png(width: size, height: 1), contentType: "image/png", token: token)
                    .jsonObject()["id"] as? String)
            }
            let attached = try await upload(1)
            let profile = try await upload(2)
            let orphan = try await upload(3)
            let detached = try await upload(4)
            let classId = try #require(try await client.createClass(token: token, ["imageIds": [attached, detached]])["id"] as? String)
            _ = try await client.send(.patch, "/v1/me", json: ["profileImageId": profile], token: token)
            _ = try await client.send(.patch, "/v1/classes/\(classId)", json: ["imageIds": [attached]], token: token)

            // Within the grace period nothing goes.
            try await environment.cleanUp(now: Date())
            #expect(Self.storedFiles(in: configuration.imagesDirectory).count == 4)

            try await environment.cleanUp(now: Date().addingTimeInterval(7200))
            #expect(try await client.send(.get, "/v1/images/\(attached)").status == .ok)
            #expect(try await client.send(.get, "/v1/images/\(profile)").status == .ok)
            #expect(try await client.send(.get, "/v1/images/\(orphan)").status == .notFound)
            #expect(try await client.send(.get, "/v1/images/\(detached)").status == .notFound)
            #expect(Self.storedFiles(in: configuration.imagesDirectory).count == 2)

            // Deleting the class releases its images.
            _ = try await client.send(.delete, "/v1/classes/\(classId)", token: token)
            try await environment.cleanUp(now: Date().addingTimeInterval(7200))
            #expect(try await client.send(.get, "/v1/images/\(attached)").status == .notFound)
            #expect(Self.storedFiles(in: configuration.imagesDirectory).count == 1)
        }
    }

    /// The content-addressed files under the images folder (not the temporary ones).
    static func storedFiles(in root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if !path.hasPrefix("tmp"), name.count == 64 { files.append(path) }
        }
        return files
    }
}
