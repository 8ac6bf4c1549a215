import ClassTodayCore
import Foundation
import Testing

@Suite("Page cursors and base64url")
struct PageCursorTests {
    @Test("base64url has no '+', '/' or padding, and decodes back, padded or not, for every length and byte")
    func base64URLRoundTrip() throws {
        var random = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: .min ... .max, using: &random) })
            let text = bytes.base64URLEncoded
            #expect(!text.contains(where: { "+/=".contains($0) }))
            #expect(text == bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""))
            #expect(Data(base64URLEncoded: text) == bytes)
            #expect(Data(base64URLEncoded: bytes.base64EncodedString()) == bytes)
        }
        // Base64 writes these bytes "+/+/".
        #expect(Data([0xFB, 0xFF, 0xBF]).base64URLEncoded == "-_-_")
        #expect(Data(base64URLEncoded: "-_-_") == Data([0xFB, 0xFF, 0xBF]))
    }

    @Test("text that is not base64 decodes to nothing")
    func notBase64() {
        for text in ["a", "!!!!", "ab$d", "abcde", "한글"] {
            #expect(Data(base64URLEncoded: text) == nil, "\(text)")
        }
    }

    @Test("a cursor decodes as it was encoded, for its own ordering only")
    func cursorRoundTrip() throws {
        let cursor = PageCursor(ordering: "distance", values: [.double(1234.5678), .string("01M86K8GTVQY7KH8V3531N29CV")])
        let text = cursor.encoded
        #expect(!text.contains(where: { "+/=".contains($0) }))
        #expect(try PageCursor.decode(text, ordering: "distance") == cursor)
        #expect(throws: DomainError.self) { try PageCursor.decode(text, ordering: "recent") }
        #expect(throws: DomainError.self) { try PageCursor.decode(String(repeating: "A", count: 1028), ordering: "distance") }
    }

    @Test("cursors written by hand decode as JSONEncoder's did, for any numbers and text")
    func handWrittenJSON() throws {
        var random = SystemRandomNumberGenerator()
        let doubles: [Double] = [0, -0.0, 1, 1e-12, 5e-324, .greatestFiniteMagnitude, -1234.5678, 0.1, 1e21, 123_456_789.125]
        let texts = ["", "01M86K8GTVQY7KH8V3531N29CV", "a\"b\\c/d", "\u{0}\u{1F}\n\t\r\u{8}\u{C}", "수학 과외", "🎸 e\u{301}"]
        for _ in 0..<500 {
            let values: [PageCursorValue] = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                switch Int.random(in: 0..<3, using: &random) {
                case 0: .int(Int64.random(in: .min ... .max, using: &random))
                case 1: .double(Bool.random(using: &random) ? doubles.randomElement(using: &random)!
                                : Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &random)))
                default: .string(texts.randomElement(using: &random)!)
                }
            }
            let cursor = PageCursor(ordering: texts.randomElement(using: &random)!, values: values)
            let json = try #require(Data(base64URLEncoded: cursor.encoded))
            #expect(try JSONDecoder().decode(PageCursor.self, from: json) == cursor)
            #expect(try PageCursor.decode(cursor.encoded, ordering: cursor.ordering) == cursor)
        }
        #expect(PageCursor(ordering: "distance", values: [.double(.infinity)]).encoded == "")
    }
}
