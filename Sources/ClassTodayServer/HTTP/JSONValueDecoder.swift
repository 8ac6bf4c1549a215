import ClassTodayCore
import Foundation

extension FieldError {
    /// What a field holding the NUL character (U+0000) is told: no stored text can hold it (PostgreSQL's text refuses
    /// it, and SQLite's text reads end at it).
    static let nulCharacter = "must not contain the NUL character (U+0000)"
}

/// A field of a request body whose value does not fit the type the route reads it as, or has that type but holds
/// what no field may (a string with the NUL character).
struct JSONFieldFailure: Error, Equatable {
    /// The field as the client wrote it (`price`, `location.lat`, `days[2]`); empty for the body itself.
    let field: String
    /// What is wrong with it (`must be a whole number`, `is out of range`).
    let message: String
    /// Whether the value has the field's type and is refused for what it holds (a 422), rather than being of another
    /// type (a 400).
    let refusesContent: Bool

    /// A failure of the value at `codingPath`.
    init(_ codingPath: [any CodingKey], _ message: String, refusesContent: Bool = false) {
        self.field = JSONValueDecoder.fieldName(codingPath)
        self.message = message
        self.refusesContent = refusesContent
    }
}

/// Decodes `Decodable` values from a ``JSONValue`` read by ``StrictJSONParser``. Every failure is a
/// ``JSONFieldFailure`` naming the field: a wrong type, a `null` where a value is needed, or a number that
/// the field's type cannot hold (`1e400`, `99999999999999999999` or `1.5` for a whole number).
///
/// Whole numbers accept any JSON number with an integral value (`100`, `1e2`, `100.0`), as JSON Schema's
/// `integer` does; dates are RFC 3339 strings.
struct JSONValueDecoder: Decoder {
    /// The value being decoded.
    let value: JSONValue
    /// Where the value is in the body.
    let codingPath: [any CodingKey]
    /// Nothing: request types need no context.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Decodes `type` from a whole body.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try decode(type, from: value, at: [])
    }

    /// Decodes `type` from `value`, found at `codingPath`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at codingPath: [any CodingKey]) throws -> T {
        if type == Date.self {
            guard case .string(let text) = value, let date = RFC3339.parse(text) as? T else {
                throw JSONFieldFailure(codingPath, "must be an RFC 3339 date-time")
            }
            return date
        }
        return try T(from: JSONValueDecoder(value: value, codingPath: codingPath))
    }

    /// `location.lat`, `days[2]`: how the API names a field in a problem's `errors`.
    static func fieldName(_ codingPath: [any CodingKey]) -> String {
        var name = ""
        for key in codingPath {
            if let index = key.intValue {
                name += "[\(index)]"
            } else {
                name += name.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return name
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw JSONFieldFailure(codingPath, value.mismatch("an object")) }
        return KeyedDecodingContainer(JSONKeyedContainer(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw JSONFieldFailure(codingPath, value.mismatch("an array")) }
        return JSONUnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueContainer(value: value, codingPath: codingPath)
    }
}

extension JSONValue {
    /// The message for a value that is not `expected` (`must be a string, not null`).
    func mismatch(_ expected: String) -> String {
        "must be \(expected), not \(kind)"
    }

    /// What kind of JSON value this is, for messages.
    private var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as a `Bool`.
    func bool(at codingPath: [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = self else { throw JSONFieldFailure(codingPath, mismatch("true or false")) }
        return bool
    }

    /// The value as a `String`, which must not hold the NUL character (``FieldError/nulCharacter``): PostgreSQL's text
    /// cannot store it, and SQLite's text reads end at it.
    func string(at codingPath: [any CodingKey]) throws -> String {
        guard case .string(let string) = self else { throw JSONFieldFailure(codingPath, mismatch("a string")) }
        guard !string.utf8.contains(0) else { throw JSONFieldFailure(codingPath, FieldError.nulCharacter, refusesContent: true) }
        return string
    }

    /// The value as a finite floating-point number of type `T`.
    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, at codingPath: [any CodingKey]) throws -> T {
        guard case .number(let text) = self else { throw JSONFieldFailure(codingPath, mismatch("a number")) }
        guard let number = T(text), number.isFinite else { throw JSONFieldFailure(codingPath, "is out of range") }
        return number
    }

    /// The value as a whole number of type `T`: any JSON number with an integral value that `T` can hold.
    func integer<T: FixedWidthInteger>(_ type: T.Type, at codingPath: [any CodingKey]) throws -> T {
        guard case .number(let text) = self else { throw JSONFieldFailure(codingPath, mismatch("a whole number")) }
        if let integer = T(text, radix: 10) { return integer }
        guard let number = Double(text), number.isFinite else { throw JSONFieldFailure(codingPath, "is out of range") }
        guard number == number.rounded(.towardZero) else { throw JSONFieldFailure(codingPath, "must be a whole number") }
        guard let integer = T(exactly: number) else { throw JSONFieldFailure(codingPath, "is out of range") }
        return integer
    }
}
