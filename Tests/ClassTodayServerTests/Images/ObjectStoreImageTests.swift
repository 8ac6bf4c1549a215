import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import ClassTodayServer

/// Images kept in an S3-compatible bucket (moto's server, checking signatures): the same answers as on disk, the
/// objects under content-addressed keys, deletion reaching the bucket, and an outage answered 503 with `Retry-After`.
@Suite("Images in an object store", .enabled(if: S3TestServer.isAvailable, S3TestServer.unavailableReason),
       .enabled(if: TestVips.isAvailable, "needs libvips (apt-get install libvips42)"))
struct ObjectStoreImageTests {
    /// The keys in the bucket.
    static func keys(_ server: S3TestServer) async throws -> [String] {
        try await server.client.list(prefix: "").keys
    }

    @Test("upload, original, variant and deletion go through the bucket, with the disk's headers")
    func roundTrip() async throws {
        try await S3TestServer.run { server in
            try await TestServer.withRouter(configure: { server.configure(&$0, prefix: "node/") }) { client in
                let (token, _) = try await client.signup()
                let photo = try RealImages.photo(width: 1200, height: 900)
                let created = try await client.upload(photo, contentType: "image/jpeg", token: token)
                #expect(created.status == .created)
                let id = try #require(try created.jsonObject()["id"] as? String)
                let keys = try await Self.keys(server)
                #expect(keys.count == 1 && keys[0].hasPrefix("node/originals/"))
                let sha256 = String(try #require(keys.first?.split(separator: "/").last))

                let original = try await client.send(.get, "/v1/images/\(id)")
                #expect(original.status == .ok)
                #expect(original.headers[.eTag] == "\"\(sha256)\"")
                #expect(original.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(SigV4Signer.hexSHA256(Data(original.body.readableBytesView)) == sha256)
                #expect(try await client.send(.get, "/v1/images/\(id)", headers: [.ifNoneMatch: "\"\(sha256)\""]).status == .notModified)

                let thumb = try await client.send(.get, "/v1/images/\(id)/thumb")
                #expect(thumb.status == .ok && thumb.headers[.contentType] == "image/jpeg")
                #expect(try RealImages.decode(Array(thumb.body.readableBytesView)).width == 320)
                #expect(try await Self.keys(server).contains("node/variants/\(sha256.prefix(2))/\(sha256).thumb.jpeg"))

                #expect(try await client.send(.delete, "/v1/images/\(id)", token: token).status == .noContent)
                #expect(try await Self.keys(server).isEmpty)
                #expect(try await client.send(.get, "/v1/images/\(id)").status == .notFound)
            }
        }
    }

    @Test("with presigned redirects on, a public variant in the bucket is a 307 to its object; the rest is served as before")
    func presignedRedirect() async throws {
        try await S3TestServer.run { server in
            try await TestServer.withRouter(configure: { configuration in
                server.configure(&configuration)
                configuration.imageStore.s3.presignedRedirectSeconds = 600
            }) { client in
                let (token, _) = try await client.signup()
                let photo = try RealImages.photo(width: 800, height: 600)
                let id = try #require(try await client.upload(photo, contentType: "image/jpeg", token: token).jsonObject()["id"] as? String)
                let sha256 = String(try #require(try await Self.keys(server).first?.split(separator: "/").last))
                // Not in the bucket yet: made and served by the server, and stored.
                #expect(try await client.send(.get, "/v1/images/\(id)/card").status == .ok)
                let redirect = try await client.send(.get, "/v1/images/\(id)/card")
                #expect(redirect.status == .temporaryRedirect)
                let location = try #require(redirect.headers[.location])
                #expect(location.hasPrefix("http://127.0.0.1:\(server.port)/\(S3TestServer.bucket)/variants/\(sha256.prefix(2))/\(sha256).card.jpeg?"))
                #expect(location.contains("X-Amz-Expires=600&") && location.contains("X-Amz-Signature="))
                #expect(redirect.headers[.cacheControl] == "private, max-age=300" && redirect.headers[.vary] == "Accept")
                #expect(try await client.send(.get, "/v1/images/\(id)").status == .ok, "originals still come from the server")
            }
        }
    }

    @Test("the store going away is a 503 problem with Retry-After, for uploads and for bytes not cached")
    func outage() async throws {
        try await S3TestServer.run { server in
            try await TestServer.withRouter(configure: { server.configure(&$0) }) { client in
                let (token, _) = try await client.signup()
                let photo = try RealImages.photo(width: 400, height: 300)
                let id = try #require(try await client.upload(photo, contentType: "image/jpeg", token: token).jsonObject()["id"] as? String)
                server.stop()
                for response in [try await client.send(.get, "/v1/images/\(id)/card"),
                                 try await client.upload(photo, contentType: "image/jpeg", token: token)] {
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "5")
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
                // What this node cached is still served.
                #expect(try await client.send(.get, "/v1/images/\(id)").status == .ok)
            }
        }
    }

    @Test("a store that cannot be reached at all: the upload is a 503, never a 500 or a hang")
    func unreachable() async throws {
        try await TestServer.withRouter(configure: { configuration in
            configuration.imageStore.kind = .s3
            configuration.imageStore.s3.bucket = "absent"
            configuration.imageStore.s3.endpoint = "http://127.0.0.1:9"
            configuration.imageStore.s3.pathStyle = true
            configuration.imageStore.s3.credentials = AWSCredentials(accessKeyId: "a", secretAccessKey: "b")
            configuration.imageStore.s3.timeout = .seconds(2)
        }) { client in
            let (token, _) = try await client.signup()
            let response = try await client.upload(try RealImages.photo(width: 40, height: 30), contentType: "image/jpeg", token: token)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] != nil)
        }
    }
}

/// Two nodes over one PostgreSQL database and one bucket, sharing no disk.
@Suite("Images in an object store across two nodes", .postgresOnly,
       .enabled(if: S3TestServer.isAvailable, S3TestServer.unavailableReason),
       .enabled(if: TestVips.isAvailable, "needs libvips (apt-get install libvips42)"))
struct TwoNodeObjectStoreImageTests {
    @Test("an upload on node 1 is served by node 2, a variant made on node 1 too (node 2 has no libvips), a deletion seen by both")
    func twoNodes() async throws {
        try await S3TestServer.run { server in
            try await TestServer.withTwoNodes(.router, configure: { node, configuration in
                server.configure(&configuration)
                if node == 1 { configuration.vipsLibraryPath = "/nonexistent/libvips.so.42" }
            }) { a, b, _ in
                let (token, _) = try await a.signup()
                let created = try await a.upload(try RealImages.photo(width: 1200, height: 900), contentType: "image/jpeg", token: token)
                let id = try #require(try created.jsonObject()["id"] as? String)
                let onA = try await a.send(.get, "/v1/images/\(id)")
                let onB = try await b.send(.get, "/v1/images/\(id)")
                #expect(onB.status == .ok && onB.body == onA.body && onB.headers[.eTag] == onA.headers[.eTag])

                #expect(try await a.send(.get, "/v1/images/\(id)/thumb").status == .ok)
                let thumb = try await b.send(.get, "/v1/images/\(id)/thumb")
                #expect(thumb.status == .ok && thumb.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(try RealImages.decode(Array(thumb.body.readableBytesView)).width == 320)

                #expect(try await a.send(.delete, "/v1/images/\(id)", token: token).status == .noContent)
                for client in [a, b] {
                    #expect(try await client.send(.get, "/v1/images/\(id)").status == .notFound)
                    #expect(try await client.send(.get, "/v1/images/\(id)/thumb").status == .notFound)
                }
                #expect(try await server.client.list(prefix: "").keys.isEmpty)
            }
        }
    }
}
