import NIOCore
import Testing
@testable import ClassTodayServer

/// Builds multipart bodies and reads them back through ``MultipartReader``.
enum Multipart {
    /// The boundary most tests use.
    static let boundary = "----classtoday-test-boundary"

    /// A body with `parts` (each a header block without its blank line, and content) and the closing boundary.
    static func body(_ parts: [(headers: String, content: [UInt8])], boundary: String = boundary, closing: String = "--\r\n") -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            body += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)\(closing)".utf8)
    }

    /// The headers of a form-data part named `name`.
    static func disposition(_ name: String, filename: String? = nil) -> String {
        "Content-Disposition: form-data; name=\"\(name)\"" + (filename.map { "; filename=\"\($0)\"" } ?? "")
    }

    /// Reads `body` split into `chunks` (by their end offsets) and returns the `file` part's bytes (nil when there
    /// was none) or why the body was refused.
    static func read(_ body: [UInt8], splitAt offsets: [Int] = [], boundary: String = boundary,
                     limits: MultipartReader.Limits = .init()) -> Result<[UInt8]?, MultipartReader.Malformed> {
        var reader = MultipartReader(boundary: boundary, partName: "file", limits: limits)
        var content: [UInt8] = []
        var start = 0
        do throws(MultipartReader.Malformed) {
            for end in (offsets + [body.count]) where end >= start {
                for piece in try reader.feed(ByteBuffer(bytes: body[start..<end])) { content += piece.readableBytesView }
                start = end
            }
            try reader.finish()
        } catch {
            return .failure(error)
        }
        return .success(reader.foundPart ? content : nil)
    }
}

@Suite("Multipart reader")
struct MultipartReaderTests {
    /// File content full of near-boundaries: CR, LF, dashes and the boundary less its last character.
    static let trickyContent = Array("\r\n--\r\r\n\n-\r\n--\(Multipart.boundary.dropLast())x\r\n-".utf8) + [0, 255, 13, 10, 45, 45]

    @Test("the file part's bytes come out whole wherever the body is split")
    func everySplit() throws {
        let body = Multipart.body([
            (Multipart.disposition("caption"), Array("기타 수업".utf8)),
            (Multipart.disposition("file", filename: "사진.png") + "\r\nContent-Type: image/png", Self.trickyContent),
        ])
        for offset in 0...body.count {
            #expect(try Multipart.read(body, splitAt: [offset]).get() == Self.trickyContent, "split at \(offset)")
        }
        #expect(try Multipart.read(body, splitAt: Array(0...body.count)).get() == Self.trickyContent, "one byte at a time")
    }

    @Test("a preamble, transport padding, a part with no content, and an epilogue are accepted")
    func lenientWhereTheRFCIs() throws {
        let body = Array("a preamble\r\n--XX  \t\r\n\(Multipart.disposition("empty"))\r\n\r\n\r\n--XX\r\n".utf8)
            + Array("content-disposition: FORM-DATA; name=file\r\n\r\nabc\r\n--XX--\r\nan epilogue".utf8)
        #expect(try Multipart.read(body, boundary: "XX").get() == Array("abc".utf8))
        #expect(try Multipart.read(Multipart.body([(Multipart.disposition("caption"), [1])])).get() == nil)
    }

    @Test("a part name holding a backslash is read as HTML's form encoding writes it, and a backslash-escaped quote as RFC 9110's quoted string")
    func backslashesInNames() throws {
        // urllib3 (Schemathesis) sent a part named `\`, written `name="\"`, before the file part.
        let body = Multipart.body([
            ("Content-Disposition: form-data; name=\"\\\"", Array("{}".utf8)),
            ("Content-Disposition: form-data; name=\"fi\\\"le\"", Array("escaped".utf8)),
            (Multipart.disposition("file", filename: "C:\\photos\\a.png"), Array("abc".utf8)),
        ])
        #expect(try Multipart.read(body).get() == Array("abc".utf8))
        let escaped = Multipart.body([("Content-Disposition: form-data; name=\"fi\\le\"", Array("abc".utf8))])
        #expect(try Multipart.read(escaped).get() == nil, "a literal backslash first: the part is named fi\\le, not file")
    }

    /// A body the reader must refuse.
    struct Refused: Sendable, CustomTestStringConvertible {
        let name: String
        let body: [UInt8]
        var testDescription: String { name }

        init(_ name: String, _ body: String) {
            self.init(name, Array(body.utf8))
        }

        init(_ name: String, _ body: [UInt8]) {
            self.name = name
            self.body = body
        }
    }

    static let refused: [Refused] = [
        Refused("a header name with a byte over 0x7F (crashed MultipartKit)", "--XX\r\n\u{e9}: x\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a header name with a NUL", "--XX\r\nContent\u{0}Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a header name with a space", "--XX\r\nContent Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a control byte in a header value", "--XX\r\nContent-Disposition: form-data; name=\"fi\u{1}le\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a header line without a colon", "--XX\r\nContent-Disposition form-data\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a folded header line", "--XX\r\nContent-Disposition: form-data;\r\n name=\"file\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("bare LF line ends", "--XX\nContent-Disposition: form-data; name=\"file\"\n\nabc\n--XX--\n"),
        Refused("no closing boundary", "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XX\r\n"),
        Refused("a body that stops inside a part", "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc"),
        Refused("a body that stops inside the headers", "--XX\r\nContent-Disposition: form-da"),
        Refused("an empty body", ""),
        Refused("a part without headers", "--XX\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a part without Content-Disposition", "--XX\r\nContent-Type: image/png\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a disposition that is not form-data", "--XX\r\nContent-Disposition: attachment; name=\"file\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("a disposition without a name", "--XX\r\nContent-Disposition: form-data; filename=\"a.png\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("an unterminated quoted name", "--XX\r\nContent-Disposition: form-data; name=\"file\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("two Content-Disposition headers",
                "--XX\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("two file parts",
                "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nd\r\n--XX--\r\n"),
        Refused("a boundary followed by other bytes (a longer boundary inside a part)",
                "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XXY\r\n--XX--\r\n"),
        Refused("a boundary not at the start of a line", "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc--XX--\r\n"),
        Refused("a preamble over the limit", String(repeating: "p", count: 2000) + "\r\n--XX\r\n"),
        Refused("a header block over the limit",
                "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\nX-Pad: \(String(repeating: "x", count: 9000))\r\n\r\nabc\r\n--XX--\r\n"),
        Refused("endless transport padding", "--XX" + String(repeating: " ", count: 100) + "\r\n"),
        Refused("more than 16 parts",
                String(repeating: "--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n", count: 17) + "--XX--\r\n"),
    ]

    @Test("malformed bodies are refused with a reason that quotes nothing", arguments: refused)
    func malformed(_ case: Refused) {
        switch Multipart.read(`case`.body, boundary: "XX") {
        case .success(let content):
            Issue.record("accepted, with file content \(String(describing: content))")
        case .failure(let malformed):
            #expect(!malformed.reason.isEmpty)
            #expect(!malformed.reason.contains("\u{e9}") && !malformed.reason.contains("\u{1}"))
        }
        // Also one byte at a time: the verdict does not depend on how the body arrives.
        #expect(throws: MultipartReader.Malformed.self) { try Multipart.read(`case`.body, splitAt: Array(0...`case`.body.count), boundary: "XX").get() }
    }

    @Test("a content type's boundary is read strictly", arguments: [
        ("multipart/form-data; boundary=XX", "XX"),
        ("multipart/form-data; boundary=\"with space:and/colon\"", "with space:and/colon"),
        ("Multipart/Form-Data ;  BOUNDARY=abc-123", "abc-123"),
        ("multipart/form-data", nil),
        ("multipart/form-data; boundary=", nil),
        ("multipart/form-data; boundary=\"\"", nil),
        ("multipart/form-data; boundary=\"ends with space \"", nil),
        ("multipart/form-data; boundary=\(String(repeating: "b", count: 71))", nil),
        ("multipart/form-data; boundary=has*star", nil),
        ("multipart/form-data; boundary=\"\u{e9}\"", nil),
        ("multipart/form-data; boundary=a; boundary=b", nil),
        ("multipart/form-data; boundary=\"unterminated", nil),
    ] as [(String, String?)])
    func boundary(contentType: String, expected: String?) {
        #expect(ImageUpload.boundary(of: contentType) == expected)
    }
}
