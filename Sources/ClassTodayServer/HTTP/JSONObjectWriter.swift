import Foundation

/// Writes the text of one JSON object, field by field, in the order written.
///
/// For the chat frames and bus events that every message passes through several times, and the class objects of a
/// page, where `JSONEncoder`'s cost shows. Strings are escaped as ``APIJSONEncoder`` escapes them (quotes, backslashes
/// and control characters; slashes and non-ASCII text are written as they are), and dates are RFC 3339 as the API
/// writes them.
struct JSONObjectWriter {
    private var text = "{"
    private var empty = true

    /// Starts an empty object.
    init() {
        text.reserveCapacity(192)
    }

    /// A string field; nil is written as `null`.
    mutating func add(_ key: StaticString, _ value: String?) {
        startField(key)
        if let value { Self.appendString(value, to: &text) } else { text += "null" }
    }

    /// An integer field; nil is written as `null`.
    mutating func add(_ key: StaticString, _ value: (some BinaryInteger)?) {
        startField(key)
        if let value { text += String(value) } else { text += "null" }
    }

    /// A number field, written as `JSONEncoder` writes a `Double` (no `.0` on whole numbers). `value` is finite.
    mutating func add(_ key: StaticString, _ value: Double) {
        startField(key)
        let number = value.description
        text += number.hasSuffix(".0") ? number.dropLast(2) : Substring(number)
    }

    /// A boolean field.
    mutating func add(_ key: StaticString, _ value: Bool) {
        startField(key)
        text += value ? "true" : "false"
    }

    /// A date field, as an RFC 3339 string.
    mutating func add(_ key: StaticString, _ value: Date) {
        startField(key)
        text += "\""
        text += RFC3339.format(value)
        text += "\""
    }

    /// An array of strings.
    mutating func add(_ key: StaticString, _ values: [String]) {
        startField(key)
        text += "["
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            Self.appendString(value, to: &text)
        }
        text += "]"
    }

    /// A field whose value is already JSON text (an object written by another writer, or stored JSON).
    mutating func add(_ key: StaticString, json: String) {
        startField(key)
        text += json
    }

    /// The text of an object whose fields `fields` writes.
    static func object(_ fields: (inout JSONObjectWriter) -> Void) -> String {
        var object = JSONObjectWriter()
        fields(&object)
        return object.finish()
    }

    /// A JSON array of values already written as JSON text.
    static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }

    /// The object's text.
    consuming func finish() -> String {
        text + "}"
    }

    private mutating func startField(_ key: StaticString) {
        if !empty { text += "," }
        empty = false
        text += "\""
        text += key.description
        text += "\":"
    }

    /// Appends `value` as a quoted JSON string (also for JSON written without a writer: rows bound to a statement).
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        let utf8 = value.utf8
        guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

/// A response object that writes its own JSON text, byte for byte what `APIJSONEncoder` writes for it: pages of such
/// items are written with ``JSONObjectWriter`` instead of `JSONEncoder`.
protocol JSONTextRepresentable: Encodable {
    /// The object as JSON text.
    var jsonText: String { get }
}
