import ClassTodayCore
import Foundation

/// Writes the UTF-8 text of one JSON object, field by field, in the order written. Nested objects and arrays of them
/// are written in place (``add(_:object:_:)``, ``add(_:objects:_:)``): a whole page of class objects goes into one
/// buffer (``finishBytes()``).
///
/// For the chat frames and bus events that every message passes through several times, and the class objects of a
/// page, where `JSONEncoder`'s cost shows. Strings are escaped as ``APIJSONEncoder`` escapes them (quotes, backslashes
/// and control characters; slashes and non-ASCII text are written as they are), and dates are RFC 3339 as the API
/// writes them. The text is kept as bytes: small appends to a `String` cost several times more, and a page makes
/// thousands of them.
struct JSONObjectWriter {
    private var bytes: [UInt8]
    private var empty = true

    /// Starts an empty object, with room for `capacity` bytes before the buffer grows.
    init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Starts an empty object at the end of `bytes`, which ``finishBytes()`` gives back with the object appended.
    private init(appendingTo bytes: consuming [UInt8]) {
        // Consumed, so that the storage is referenced once here and the object appends to it in place.
        self.bytes = consume bytes
        self.bytes.append(UInt8(ascii: "{"))
    }

    /// A string field; nil is written as `null`.
    mutating func add(_ key: StaticString, _ value: String?) {
        startField(key)
        if let value { JSONString.append(value, to: &bytes) } else { append("null") }
    }

    /// An integer field; nil is written as `null`.
    mutating func add(_ key: StaticString, _ value: (some BinaryInteger)?) {
        startField(key)
        guard let value else { return append("null") }
        // Digit by digit, least significant first, then reversed in place: `String(value)` made a string per number.
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let first = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        bytes[first...].reverse()
    }

    /// A number field, written as `JSONEncoder` writes a `Double` (no `.0` on whole numbers). `value` is finite.
    mutating func add(_ key: StaticString, _ value: Double) {
        startField(key)
        let number = value.description
        bytes.append(contentsOf: number.hasSuffix(".0") ? number.utf8.dropLast(2) : number.utf8[...])
    }

    /// A boolean field.
    mutating func add(_ key: StaticString, _ value: Bool) {
        startField(key)
        append(value ? "true" : "false")
    }

    /// A date field, as an RFC 3339 string.
    mutating func add(_ key: StaticString, _ value: Date) {
        startField(key)
        bytes.append(UInt8(ascii: "\""))
        RFC3339.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// An array of strings.
    mutating func add(_ key: StaticString, _ values: [String]) {
        startField(key)
        JSONString.append(array: values, to: &bytes)
    }

    /// An array of the raw values of `values` (enum cases), without an array of strings in between.
    mutating func add(_ key: StaticString, rawValues values: [some RawRepresentable<String>]) {
        startField(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONString.append(value.rawValue, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A field whose value is already JSON text (stored JSON).
    mutating func add(_ key: StaticString, json: String) {
        startField(key)
        bytes.append(contentsOf: json.utf8)
    }

    /// An object field whose fields `fields` writes, in place; nil is written as `null`.
    mutating func add<Value>(_ key: StaticString, object value: Value?, _ fields: (inout JSONObjectWriter, Value) -> Void) {
        startField(key)
        guard let value else { return append("null") }
        writeObject { fields(&$0, value) }
    }

    /// An array field of objects, each written in place by `fields`.
    mutating func add<Element>(_ key: StaticString, objects: some Sequence<Element>, _ fields: (inout JSONObjectWriter, Element) -> Void) {
        startField(key)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in objects {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            writeObject { fields(&$0, element) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object's text.
    consuming func finish() -> String {
        String(decoding: finishBytes(), as: UTF8.self)
    }

    /// The object's UTF-8 bytes, after the bytes it was started on, if any.
    consuming func finishBytes() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Appends an object whose fields `fields` writes: the bytes move into its writer and back, without a copy.
    private mutating func writeObject(_ fields: (inout JSONObjectWriter) -> Void) {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        var object = JSONObjectWriter(appendingTo: consume taken)
        fields(&object)
        bytes = object.finishBytes()
    }

    /// Writes `,"key":` (no comma before the first field).
    private mutating func startField(_ key: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        bytes.append(UInt8(ascii: "\""))
        append(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}

/// A response object that writes its own JSON text, byte for byte what `APIJSONEncoder` writes for it: pages of such
/// items are written with ``JSONObjectWriter`` instead of `JSONEncoder`, all into one buffer.
protocol JSONTextRepresentable: Encodable {
    /// Writes the object's fields.
    func writeFields(to object: inout JSONObjectWriter)
}

extension JSONTextRepresentable {
    /// The object as JSON text.
    var jsonText: String {
        var object = JSONObjectWriter()
        writeFields(to: &object)
        return object.finish()
    }
}
