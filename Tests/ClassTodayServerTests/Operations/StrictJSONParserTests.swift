import Foundation
import Testing
@testable import ClassTodayServer

@Suite("Strict JSON parser")
struct StrictJSONParserTests {
    private static func parse(_ text: String) throws -> JSONValue {
        try StrictJSONParser.parse(Array(text.utf8))
    }

    @Test("valid JSON is read exactly: escapes, surrogate pairs, numbers as written, nesting")
    func validDocument() throws {
        let text = #" { "a" : [1, -0.5e+3, 0, true, false, null, "\u00e9\ud83d\ude00\n\t\"\\\/"], "b": {}, "c": [] , "한글": "값" } "#
        let value = try Self.parse(text)
        #expect(value == .object([
            "a": .array([.number("1"), .number("-0.5e+3"), .number("0"), .bool(true), .bool(false), .null, .string("é😀\n\t\"\\/")]),
            "b": .object([:]),
            "c": .array([]),
            "한글": .string("값"),
        ]))
    }

    @Test("a document is any JSON value, also a scalar")
    func scalars() throws {
        #expect(try Self.parse("42") == .number("42"))
        #expect(try Self.parse(#""x""#) == .string("x"))
        #expect(try Self.parse("null") == .null)
    }

    @Test("every document Foundation writes is read back to the same value")
    func foundationRoundTrip() throws {
        let object: [String: Any] = ["name": "기타 \"레슨\"\u{1}", "price": 20000, "lat": 37.4842, "days": ["mon", "sat"], "none": NSNull()]
        let data = try JSONSerialization.data(withJSONObject: object)
        let value = try StrictJSONParser.parse([UInt8](data))
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members["name"] == .string("기타 \"레슨\"\u{1}"))
        #expect(members["price"] == .number("20000"))
        #expect(members["days"] == .array([.string("mon"), .string("sat")]))
        #expect(members["none"] == .null)
    }

    @Test("numbers follow RFC 8259's grammar and nothing else", arguments: [
        ("-0", true), ("1e5", true), ("1E-5", true), ("0.25", true),
        ("+1", false), ("01", false), (".5", false), ("1.", false), ("1e", false), ("0x10", false), ("Infinity", false), (" 1", false),
    ])
    func numberGrammar(text: String, isNumber: Bool) {
        #expect(StrictJSONParser.isNumber(text) == isNumber)
    }
}
