import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import Testing
@testable import ClassTodayServer

@Suite("Lists in storage form")
struct StoredListTests {
    /// Characters that need escaping, Korean text, an emoji and plain ASCII.
    static let alphabet: [Character] = ["\"", "\\", "\n", "\u{01}", "/", "가", "😀", "a", " ", "]", ","]

    @Test("stored strings read back unchanged, whatever their characters")
    func roundTrip() {
        var random = SeededRandom(seed: 47)
        for _ in 0..<2_000 {
            let strings = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                String((0..<Int.random(in: 0...8, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! })
            }
            #expect(StoredList.decodeStrings(StoredList.encodeStrings(strings)) == strings)
        }
    }

    @Test("PostgreSQL's jsonb text reads as SQLite's does; unknown enum values are skipped")
    func jsonbText() {
        #expect(StoredList.decodeStrings(#"["mon", "sat"]"#) == ["mon", "sat"])
        #expect(StoredList.decode(#"[ "mon" , "someday", "sun" ]"#) as [Weekday] == [.mon, .sun])
    }

    @Test("NULL, malformed text and a non-string element read as an empty list")
    func malformed() {
        for text in [nil, "", "[", #"["a""#, #"{"a": 1}"#, #"["a", 1]"#, #"["a", null]"#, "null", #""a""#, #"["a",]"#] {
            #expect(StoredList.decodeStrings(text) == [], "\(text ?? "NULL")")
        }
    }
}
