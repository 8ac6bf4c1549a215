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
}
