import ClassTodayCore
import Foundation

/// Lists of enum values stored as a JSON array of their raw values.
package enum StoredList {
    /// The JSON text of `values`.
    static func encode<Value: RawRepresentable<String>>(_ values: [Value]) -> String {
        encodeStrings(values.map(\.rawValue))
    }

    /// The values of a stored JSON array, skipping any this version does not know.
    static func decode<Value: RawRepresentable<String>>(_ text: String) -> [Value] {
        decodeStrings(text).compactMap(Value.init(rawValue:))
    }

    /// The JSON text of a list of strings (written by hand: `JSONEncoder` took longer than the statement that reads a
    /// page's listings by this list of their ids).
    package static func encodeStrings(_ values: [String]) -> String {
        var json: [UInt8] = []
        JSONString.append(array: values, to: &json)
        return String(decoding: json, as: UTF8.self)
    }

    /// The strings of a stored JSON array (empty for NULL, malformed text or an element that is not a string). Read
    /// with ``StrictJSONParser``: `JSONDecoder` was a twentieth of a served search page's CPU time, for three short lists
    /// a listing.
    static func decodeStrings(_ text: String?) -> [String] {
        guard var text else { return [] }
        if let strings = text.withUTF8(plainStrings) { return strings }
        guard case .array(let elements)? = try? StrictJSONParser.parse(Array(text.utf8)) else { return [] }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else { return [] }
            strings.append(string)
        }
        return strings
    }

    /// The strings of `json` when it is an array as ``encodeStrings(_:)`` writes one whose strings need no escape
    /// (`["a","b"]`: no spaces, no backslashes), read by splitting at the quotes, as most stored lists are; nil for
    /// anything else, which the parser reads.
    private static func plainStrings(_ json: UnsafeBufferPointer<UInt8>) -> [String]? {
        let (quote, comma) = (UInt8(ascii: "\""), UInt8(ascii: ","))
        guard json.count >= 2, json.first == UInt8(ascii: "["), json.last == UInt8(ascii: "]") else { return nil }
        let end = json.count - 1
        var strings: [String] = []
        var index = 1
        while index < end {
            if !strings.isEmpty {
                guard json[index] == comma else { return nil }
                index += 1
            }
            guard index < end, json[index] == quote else { return nil }
            let start = index + 1
            guard let close = json[start..<end].firstIndex(where: { $0 == quote || $0 == UInt8(ascii: "\\") || $0 < 0x20 }),
                  json[close] == quote
            else { return nil }
            // Quotes are ASCII, so the bytes between two are whole characters of the (valid) text.
            strings.append(String(decoding: UnsafeBufferPointer(rebasing: json[start..<close]), as: UTF8.self))
            index = close + 1
        }
        return strings
    }
}

extension SQLRow {
    /// The date stored in milliseconds in `column`.
    func date(_ column: String) throws -> Date {
        Date(millisecondsSince1970: try self[column])
    }

    /// The date stored in milliseconds in the nullable `column`; nil for NULL or when the row has no such column.
    func optionalDate(_ column: String) throws -> Date? {
        guard contains(column) else { return nil }
        return (try self[column] as Int64?).map(Date.init(millisecondsSince1970:))
    }

    /// A point from nullable latitude and longitude columns.
    func location(lat latColumn: String = "lat", lon lonColumn: String = "lon") throws -> GeoPoint? {
        let lat: Double? = try self[latColumn]
        let lon: Double? = try self[lonColumn]
        return lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } }
    }

    /// A rating from the sum of grades and their count.
    func rating(sum sumColumn: String, count countColumn: String) throws -> Rating {
        Rating(sum: try self[sumColumn], count: try self[countColumn])
    }
}

extension Rating {
    /// The rating of `count` grades adding up to `sum` (stored as the two).
    init(sum: Double, count: Int) {
        self.init(average: count == 0 ? 0 : sum / Double(count), count: count)
    }
}
