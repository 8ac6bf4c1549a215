import AsyncHTTPClient
import Foundation
import Testing
@testable import ClassTodayServer

/// The S3 client against moto's server, which checks every signature.
@Suite("S3 client", .enabled(if: S3TestServer.isAvailable, S3TestServer.unavailableReason))
struct S3ClientTests {
    /// Runs `body` with a client of a fresh server's bucket.
    private func withClient(
        _ adjust: @Sendable (inout S3Settings) -> Void = { _ in }, _ body: @Sendable (S3Client) async throws -> Void
    ) async throws {
        try await S3TestServer.run { server in
            var settings = server.settings()
            adjust(&settings)
            try await body(S3Client(settings: settings))
        }
    }

    @Test("PUT, GET, HEAD and DELETE round trip, keys with characters that need encoding")
    func roundTrip() async throws {
        try await withClient { s3 in
            let data = Data((0..<5000).map { UInt8($0 % 251) })
            let key = "originals/ab/name with space+plus~é"
            try await s3.put(key: key, data: data, contentType: "image/jpeg")
            guard case .found(let object) = try await s3.get(key: key) else { Issue.record("not found"); return }
            #expect(object.data == data)
            #expect(try await s3.head(key: key) == 5000)
            try await s3.delete(key: key)
            #expect(try await s3.get(key: key) == .notFound)
            #expect(try await s3.head(key: key) == nil)
            try await s3.delete(key: key)
        }
    }

    @Test("a Range GET returns those bytes; If-None-Match with the entity tag is 304")
    func rangeAndConditional() async throws {
        try await withClient { s3 in
            let data = Data("0123456789abcdef".utf8)
            try await s3.put(key: "k", data: data, contentType: "application/octet-stream")
            guard case .found(let part) = try await s3.get(key: "k", range: 2...5) else { Issue.record("not found"); return }
            #expect(part.data == Data("2345".utf8))
            guard case .found(let whole) = try await s3.get(key: "k") else { Issue.record("not found"); return }
            let etag = try #require(whole.etag)
            #expect(try await s3.get(key: "k", ifNoneMatch: etag) == .notModified)
            #expect(try await s3.get(key: "k", ifNoneMatch: "\"other\"") == .found(whole))
        }
    }

    @Test("list pages through the keys under a prefix")
    func list() async throws {
        try await withClient { s3 in
            for name in ["p/a", "p/b", "q/c"] { try await s3.put(key: name, data: Data(name.utf8), contentType: "text/plain") }
            let listed = try await s3.list(prefix: "p/")
            #expect(listed.keys == ["p/a", "p/b"])
            #expect(!listed.truncated)
            #expect(try await s3.list(prefix: "p/", after: "p/a").keys == ["p/b"])
        }
    }

    @Test("a wrong secret is refused by the store's signature check")
    func wrongSecret() async throws {
        try await withClient({ $0.credentials.secretAccessKey = "wrong" }) { s3 in
            await #expect(throws: ObjectStoreError.failed(status: 403, code: "SignatureDoesNotMatch")) {
                try await s3.put(key: "k", data: Data("x".utf8), contentType: "text/plain")
            }
        }
    }
}

@Suite("S3 client without a store")
struct S3ClientOutageTests {
    // No wall-clock bound on the answer: in a full parallel run the test process itself may wait tens of seconds for a
    // thread. The time limit fails a hang.
    @Test("a store that accepts connections but never answers fails instead of hanging", .timeLimit(.minutes(1)))
    func silentStore() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try #require(bind(listener, raw, length) == 0 && listen(listener, 8) == 0)
                try #require(getsockname(listener, raw, &length) == 0)
            }
        }
        var settings = S3Settings()
        settings.bucket = "silent"
        settings.endpoint = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        settings.pathStyle = true
        settings.credentials = AWSCredentials(accessKeyId: "a", secretAccessKey: "b")
        settings.timeout = .milliseconds(300)
        let s3 = S3Client(settings: settings)
        await #expect(throws: ObjectStoreError.self) { try await s3.get(key: "k") }
    }

    @Test("virtual-hosted addressing puts the bucket in the host name, path-style in the path")
    func addressing() {
        var settings = S3Settings()
        settings.bucket = "photos"
        settings.region = "eu-west-1"
        settings.credentials = AWSCredentials(accessKeyId: "a", secretAccessKey: "b")
        let virtual = S3Client(settings: settings).presignedURL(key: "o/k", expires: 60)
        #expect(virtual.hasPrefix("https://photos.s3.eu-west-1.amazonaws.com/o/k?"))
        settings.endpoint = "http://127.0.0.1:9000"
        settings.pathStyle = true
        let path = S3Client(settings: settings).presignedURL(key: "o/k", expires: 60)
        #expect(path.hasPrefix("http://127.0.0.1:9000/photos/o/k?"))
    }
}
