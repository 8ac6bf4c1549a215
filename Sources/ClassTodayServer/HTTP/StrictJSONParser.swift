/// A JSON value as ``StrictJSONParser`` reads it. Numbers keep their text, so that a field converts it to the
/// type it needs and reports a value that does not fit under the field's own name.
enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number as written, already checked against RFC 8259's number grammar.
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array's elements, in order.
    case array([JSONValue])
    /// An object's members by name (names are unique: the parser refuses repeats).
    case object([String: JSONValue])
}

/// Why a body is not JSON: what was wrong and at which byte.
struct JSONSyntaxError: Error, Equatable {
    /// What was wrong, in words a client developer can act on.
    let reason: String
    /// The offset of the offending byte from the start of the body.
    let offset: Int

    /// `reason at byte offset`.
    var description: String { "\(reason) at byte \(offset)" }
}

/// Reads JSON text exactly as RFC 8259 defines it: no trailing commas, comments, single quotes, leading zeros,
/// `NaN` or unescaped control characters; valid UTF-8 without a byte order mark; escapes that name whole
/// Unicode scalars (no lone surrogates); unique member names in each object; nesting at most ``maximumDepth``.
///
/// Foundation's `JSONDecoder` accepts some of these and never looks at members that the target type does not
/// read, so request bodies are parsed here first.
struct StrictJSONParser {
    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses `bytes` as one JSON text.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = StrictJSONParser(bytes: bytes)
        guard !bytes.isEmpty else { throw parser.failure("the body is empty") }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    /// Whether `text` is exactly one JSON number, with nothing around it (no white space, no `+`).
    static func isNumber(_ text: some StringProtocol) -> Bool {
        var parser = StrictJSONParser(bytes: Array(text.utf8))
        guard let first = parser.peek(), first == ASCII.minus || ASCII.isDigit(first), (try? parser.number()) != nil else {
            return false
        }
        return parser.index == parser.bytes.count
    }

    // MARK: Values

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek() else { throw failure("unexpected end of the body") }
        switch byte {
        case ASCII.openBrace: return try object()
        case ASCII.openBracket: return try array()
        case ASCII.quote: return .string(try string())
        case ASCII.t: try literal("true"); return .bool(true)
        case ASCII.f: try literal("false"); return .bool(false)
        case ASCII.n: try literal("null"); return .null
        case ASCII.minus, ASCII.zero...ASCII.nine: return .number(try number())
        default: throw failure("unexpected character (JSON has no comments, single quotes, NaN or Infinity)")
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enterNesting()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == ASCII.closeBrace {
            return leaveNesting(.object(members))
        }
        while true {
            skipWhitespace()
            guard peek() == ASCII.quote else {
                throw failure(peek() == ASCII.closeBrace ? "a trailing comma before '}'" : "expected a member name in double quotes")
            }
            let nameOffset = index
            let name = try string()
            guard members[name] == nil else { throw JSONSyntaxError(reason: "a member name appears twice in one object", offset: nameOffset) }
            skipWhitespace()
            guard peek() == ASCII.colon else { throw failure("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            members[name] = try value()
            skipWhitespace()
            switch peek() {
            case ASCII.comma: index += 1
            case ASCII.closeBrace: return leaveNesting(.object(members))
            default: throw failure("expected ',' or '}' after a member")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enterNesting()
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == ASCII.closeBracket {
            return leaveNesting(.array(elements))
        }
        while true {
            skipWhitespace()
            if peek() == ASCII.closeBracket { throw failure("a trailing comma before ']'") }
            elements.append(try value())
            skipWhitespace()
            switch peek() {
            case ASCII.comma: index += 1
            case ASCII.closeBracket: return leaveNesting(.array(elements))
            default: throw failure("expected ',' or ']' after an element")
            }
        }
    }

    /// Steps over the opening bracket or brace.
    private mutating func enterNesting() throws(JSONSyntaxError) {
        guard depth < Self.maximumDepth else { throw failure("arrays and objects nest more than \(Self.maximumDepth) deep") }
        depth += 1
        index += 1
    }

    /// Steps over the closing bracket or brace and returns `value`.
    private mutating func leaveNesting(_ value: JSONValue) -> JSONValue {
        depth -= 1
        index += 1
        return value
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= text.count, bytes[index..<index + text.count].elementsEqual(text) else {
            throw failure("unexpected character (JSON's literals are true, false and null)")
        }
        index += text.count
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as text.
    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = index
        if peek() == ASCII.minus { index += 1 }
        switch peek() {
        case ASCII.zero:
            index += 1
            if let next = peek(), ASCII.isDigit(next) { throw failure("numbers must not have leading zeros") }
        case let digit? where ASCII.isDigit(digit):
            skipDigits()
        default:
            throw failure("expected a digit")
        }
        if peek() == ASCII.dot {
            index += 1
            guard let digit = peek(), ASCII.isDigit(digit) else { throw failure("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == ASCII.e || peek() == ASCII.capitalE {
            index += 1
            if peek() == ASCII.plus || peek() == ASCII.minus { index += 1 }
            guard let digit = peek(), ASCII.isDigit(digit) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipDigits() {
        while let byte = peek(), ASCII.isDigit(byte) { index += 1 }
    }

    // MARK: Strings

    private mutating func string() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var utf8: [UInt8] = []
        while true {
            let runStart = index
            while let byte = peek(), byte != ASCII.quote, byte != ASCII.backslash, byte >= 0x20 { index += 1 }
            utf8.append(contentsOf: bytes[runStart..<index])
            switch peek() {
            case nil:
                throw JSONSyntaxError(reason: "a string is not closed", offset: start)
            case .some(ASCII.quote):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw JSONSyntaxError(reason: "a string is not valid UTF-8", offset: start)
                }
                return text
            case .some(ASCII.backslash):
                try escape(into: &utf8)
            default:
                throw failure("control characters must be escaped inside strings")
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        let start = index
        index += 1
        guard let byte = peek() else { throw failure("a string is not closed") }
        index += 1
        switch byte {
        case ASCII.quote, ASCII.backslash, ASCII.slash: utf8.append(byte)
        case ASCII.b: utf8.append(0x08)
        case ASCII.f: utf8.append(0x0C)
        case ASCII.n: utf8.append(0x0A)
        case ASCII.r: utf8.append(0x0D)
        case ASCII.t: utf8.append(0x09)
        case ASCII.u:
            var code = try hexQuad()
            if (0xD800...0xDBFF).contains(code) {
                guard peek() == ASCII.backslash, peek(at: index + 1) == ASCII.u else {
                    throw JSONSyntaxError(reason: "a \\u escape is half of a surrogate pair", offset: start)
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONSyntaxError(reason: "a \\u escape is half of a surrogate pair", offset: start)
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else {
                throw JSONSyntaxError(reason: "a \\u escape is half of a surrogate pair", offset: start)
            }
            utf8.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
        default:
            throw JSONSyntaxError(reason: "an invalid escape sequence", offset: start)
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = ASCII.hexValue(byte) else { throw failure("expected four hex digits after \\u") }
            code = code << 4 | digit
            index += 1
        }
        return code
    }

    // MARK: Bytes

    private func peek() -> UInt8? {
        peek(at: index)
    }

    private func peek(at position: Int) -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    /// Skips JSON's four white-space characters (and nothing else: no byte order mark, no Unicode spaces).
    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func failure(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: index)
    }
}

/// The bytes the parser looks for.
private enum ASCII {
    static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), slash = UInt8(ascii: "/")
    static let colon = UInt8(ascii: ":"), comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+"), dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
    static let b = UInt8(ascii: "b"), e = UInt8(ascii: "e"), capitalE = UInt8(ascii: "E"), f = UInt8(ascii: "f")
    static let n = UInt8(ascii: "n"), r = UInt8(ascii: "r"), t = UInt8(ascii: "t"), u = UInt8(ascii: "u")

    static func isDigit(_ byte: UInt8) -> Bool {
        (zero...nine).contains(byte)
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case zero...nine: UInt32(byte - zero)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
