import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer
@testable import ClassTodayTestSupport

/// Seeded random and mutated multipart bodies: nothing may crash the upload path, and every body ends either in
/// the file's bytes or in a refusal the server answers with a 4xx.
@Suite("Multipart fuzz")
struct MultipartFuzzTests {
    static let seed: UInt64 = 0x00C1_A55D_AA7F_0225
    static let boundary = "XX-fuzz"
    static let file = Array("\u{89}PNG\r\n\u{1a}\n".utf8) + (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }

    /// A valid body with a few parts around the file part.
    static func validBody(_ random: inout SeededRandom) -> [UInt8] {
        var parts: [(headers: String, content: [UInt8])] = (0..<Int.random(in: 0...3, using: &random)).map { index in
            (Multipart.disposition("field\(index)"), Array("value \(index)".utf8))
        }
        let filePart = (Multipart.disposition("file", filename: "photo.png") + "\r\nContent-Type: image/png", file)
        parts.insert(filePart, at: Int.random(in: 0...parts.count, using: &random))
        return Multipart.body(parts, boundary: boundary)
    }

    /// `body` changed in one of the ways a hostile or broken client changes bodies.
    static func mutate(_ body: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var body = body
        let delimiter = Array("--\(boundary)".utf8)
        func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        func position() -> Int { Int.random(in: 0...body.count, using: &random) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: // flip a few bytes
            for _ in 0..<Int.random(in: 1...8, using: &random) where !body.isEmpty {
                body[Int.random(in: 0..<body.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 1: // random bytes in a header name
            let header = Array("\r\nContent-Disposition".utf8)
            if let range = body.firstRange(of: header) {
                body.replaceSubrange(range.lowerBound + 2 ..< range.lowerBound + 2 + Int.random(in: 1...19, using: &random),
                                     with: randomBytes(Int.random(in: 1...6, using: &random)))
            }
        case 2: // truncate anywhere, often inside a boundary
            body.removeSubrange(position()...)
        case 3: // a truncated boundary somewhere
            body.insert(contentsOf: Array("\r\n".utf8) + delimiter.prefix(Int.random(in: 0...delimiter.count, using: &random)), at: position())
        case 4: // a huge header
            if let range = body.firstRange(of: Array("\r\n\r\n".utf8)) {
                body.insert(contentsOf: Array("\r\nX-Huge: \(String(repeating: "h", count: Int.random(in: 1000...20000, using: &random)))".utf8),
                            at: range.lowerBound)
            }
        case 5: // a nested multipart body with the same or a longer boundary
            let inner = Multipart.body([(Multipart.disposition("file"), randomBytes(8))],
                                       boundary: Bool.random(using: &random) ? boundary : boundary + "-inner")
            body.insert(contentsOf: inner, at: position())
        case 6: // random bytes inserted
            body.insert(contentsOf: randomBytes(Int.random(in: 1...64, using: &random)), at: position())
        case 7: // a stretch duplicated (extra parts, repeated headers)
            let start = position()
            let end = min(body.count, start + Int.random(in: 1...120, using: &random))
            body.insert(contentsOf: body[start..<end], at: position())
        case 8: // pure noise
            body = randomBytes(Int.random(in: 0...400, using: &random))
        default: // line ends broken: CRLF to LF or CR
            if let range = body.firstRange(of: Array("\r\n".utf8)) {
                body.remove(at: Bool.random(using: &random) ? range.lowerBound : range.lowerBound + 1)
            }
        }
        return body
    }

    /// Random split offsets of a body of `count` bytes.
    static func splits(_ count: Int, _ random: inout SeededRandom) -> [Int] {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in Int.random(in: 0...count, using: &random) }.sorted()
    }

    @Test("20,000 seeded bodies through the reader: never a crash, always the file's bytes or Malformed")
    func reader() {
        var random = SeededRandom(seed: Self.seed)
        var outcomes = (accepted: 0, refused: 0)
        for _ in 0..<20_000 {
            let valid = Self.validBody(&random)
            let mutations = Int.random(in: 0...3, using: &random)
            var body = valid
            for _ in 0..<mutations { body = Self.mutate(body, &random) }
            switch Multipart.read(body, splitAt: Self.splits(body.count, &random), boundary: Self.boundary) {
            case .success(let content):
                outcomes.accepted += 1
                #expect((content?.count ?? 0) <= body.count)
                if body == valid { #expect(content == Self.file) }
            case .failure(let malformed):
                outcomes.refused += 1
                #expect(!malformed.reason.isEmpty)
            }
        }
        // Both outcomes are exercised: the mutations are neither all harmless nor all fatal.
        #expect(outcomes.accepted > 1000 && outcomes.refused > 1000, "\(outcomes)")
    }

    @Test("400 seeded bodies through the upload path: the bytes, or a DomainError or UploadError")
    func uploadPath() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-fuzz-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let upload = ImageUpload(limit: 4096, spoolFolder: folder)
        var random = SeededRandom(seed: Self.seed ^ 1)
        for _ in 0..<400 {
            var body = Self.validBody(&random)
            for _ in 0..<Int.random(in: 0...2, using: &random) { body = Self.mutate(body, &random) }
            let offsets = Self.splits(body.count, &random)
            let chunks = zip([0] + offsets, offsets + [body.count]).map { ByteBuffer(bytes: body[$0..<$1]) }
            let request = Request(
                head: HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/v1/images",
                                  headerFields: [.contentType: "multipart/form-data; boundary=\(Self.boundary)"]),
                body: RequestBody(asyncSequence: AsyncStream { continuation in
                    for chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                }))
            do {
                let bytes = try await upload.read(request)
                #expect(bytes.count <= body.count)
            } catch is DomainError {
            } catch is ImageUpload.UploadError {
            } catch {
                Issue.record("unexpected error \(String(reflecting: error))")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "spool files are removed")
    }

    /// A hostile multipart body sent to the real route.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let contentType: String
        let body: [UInt8]
        let status: HTTPResponse.Status
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(name: "a header name with a byte over 0x7F (crashed the server)", contentType: "multipart/form-data; boundary=XX",
                body: Array("--XX\r\n\u{e9}: x\r\n\r\nabc\r\n--XX--\r\n".utf8), status: .badRequest),
        Hostile(name: "no closing boundary", contentType: "multipart/form-data; boundary=XX",
                body: Array("--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc".utf8), status: .badRequest),
        Hostile(name: "a 20 KiB part header", contentType: "multipart/form-data; boundary=XX",
                body: Array("--XX\r\nContent-Disposition: form-data; name=\"file\"\r\nX: \(String(repeating: "x", count: 20_000))\r\n\r\na\r\n--XX--\r\n".utf8),
                status: .badRequest),
        Hostile(name: "noise", contentType: "multipart/form-data; boundary=XX", body: (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 131) },
                status: .badRequest),
        Hostile(name: "a bad boundary parameter", contentType: "multipart/form-data; boundary=\"a\u{1}b\"", body: Array("x".utf8),
                status: .badRequest),
        Hostile(name: "a file part over the limit", contentType: "multipart/form-data; boundary=XX",
                body: Multipart.body([(Multipart.disposition("file"), [UInt8](repeating: 7, count: 10_000))], boundary: "XX"),
                status: .contentTooLarge),
        Hostile(name: "a multipart body far over the limit in other parts", contentType: "multipart/form-data; boundary=XX",
                body: Multipart.body([(Multipart.disposition("caption"), [UInt8](repeating: 7, count: 200_000))], boundary: "XX"),
                status: .contentTooLarge),
        Hostile(name: "not multipart, not an image", contentType: "text/plain", body: Array("hello".utf8), status: .unsupportedMediaType),
    ]

    @Test("hostile bodies through the real route get a 4xx problem, and the server keeps answering", arguments: hostile)
    func realRoute(_ hostile: Hostile) async throws {
        try await TestServer.withLiveServer(configure: { $0.maxImageBytes = 4096 }) { client in
            let (token, _) = try await client.signup()
            let response = try await client.execute(
                uri: "/v1/images", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: hostile.contentType], body: ByteBuffer(bytes: hostile.body))
            #expect(response.status == hostile.status)
            let problem = try response.problem()
            if hostile.status == .badRequest, hostile.name != "a bad boundary parameter" {
                #expect(try response.problemFields() == ["file"], "\(problem)")
            }
            // A refused upload ends its connection (its body was not read); a new one is served.
            let port = try #require(client.port)
            let health = try await TestClient.withClient(host: "127.0.0.1", port: port) { try await $0.get("/health") }
            #expect(health.status == .ok)
        }
    }
}
