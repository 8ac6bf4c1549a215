import ClassTodayCore
import Foundation
import Testing

@Suite("JSON strings written by hand")
struct JSONStringTests {
    /// `value` written as UTF-8 bytes by ``JSONString``.
    private func written(_ value: String) -> String {
        var bytes: [UInt8] = []
        JSONString.append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a character that must be escaped is escaped at every position, before, inside and after a 16-byte block")
    func escapesAtEveryPosition() throws {
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}"] {
            for length in 0..<50 {
                for position in 0...length {
                    let filler = String(repeating: "a", count: length)
                    let value = String(filler.prefix(position)) + special + String(filler.dropFirst(position))
                    // A raw quote would end the string early, a raw control character fails the decoder.
                    #expect(try JSONDecoder().decode(String.self, from: Data(written(value).utf8)) == value, "\(length) \(position)")
                }
            }
        }
    }

    @Test("any text reads back as it was, and text needing no escape is copied as it is")
    func roundTrip() throws {
        let alphabet = Array("ab가나 /\"\\\n\t\u{08}\u{0C}\u{00}\u{1F}\u{7F}😀é")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let value = String((0..<Int.random(in: 0..<70, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(try JSONDecoder().decode(String.self, from: Data(written(value).utf8)) == value)
        }
        let plain = "기타 레슨, 토요일 오후 / Sillim station 20,000 KRW per hour — 초보 환영"
        #expect(written(plain) == "\"" + plain + "\"")
    }
}
