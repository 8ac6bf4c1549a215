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
        #expect(StoredList.decode(#"[ "mon" , "someday", "sun" ]"#) as [Weekday] == [.mon, .sun])
    }

    @Test("NULL, malformed text and a non-string element read as an empty list")
    func malformed() {
        for text in [nil, "", "[", #"["a""#, #"{"a": 1}"#, #"["a", 1]"#, #"["a", null]"#, "null", #""a""#, #"["a",]"#] {
            #expect(StoredList.decodeStrings(text) == [], "\(text ?? "NULL")")
        }
    }
}
