import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import Testing
@testable import ClassTodayServer

@Suite("Lists in storage form")
struct StoredListTests {
    @Test("stored strings read back unchanged, whatever their characters")
    func roundTrip() {
        var random = SeededRandom(seed: 47)
        for _ in 0..<2_000 {
            let strings = (0..<Int.random(in: 0...5, using: &random)).map { _ in random.awkwardText() }
            #expect(StoredList.decodeStrings(StoredList.encodeStrings(strings)) == strings)
        }
    }

    @Test("PostgreSQL's jsonb text reads as SQLite's does; unknown enum values are skipped")
    func jsonbText() {
        #expect(StoredList.decodeStrings(#"["mon", "sat"]"#) == ["mon", "sat"])
        #expect(StoredList.decodeStrings(#"["mon","수학",""]"#) == ["mon", "수학", ""])
        #expect(StoredList.decodeStrings("[]") == [])
        #expect(StoredList.decode(#"[ "mon" , "someday", "sun" ]"#) as [Weekday] == [.mon, .sun])
    }

    @Test("NULL, malformed text (compact or spaced) and a non-string element read as an empty list")
    func malformed() {
        let compact: [String?] = [#"["a"x]"#, #"["a""b"]"#, #"[,"a"]"#, #"["a",,"b"]"#, "[\"a\u{01}\"]", #"["a"]]"#, #"[["a"]"#, "[\"a"]
        for text in [nil, "", "[", #"["a""#, #"{"a": 1}"#, #"["a", 1]"#, #"["a", null]"#, "null", #""a""#, #"["a",]"#] + compact {
            #expect(StoredList.decodeStrings(text) == [], "\(text ?? "NULL")")
        }
    }
}
