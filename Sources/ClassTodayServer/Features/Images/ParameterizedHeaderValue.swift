/// A header value of the form `value *( OWS ";" OWS name "=" ( token / quoted-string ) )` (RFC 9110 §5.6.6), as
/// `Content-Type` and `Content-Disposition` carry it, read strictly: the value and every parameter name are tokens
/// (the value may hold one `/`), every parameter value is a token or a quoted string, and no name appears twice.
struct ParameterizedHeaderValue: Equatable {
    /// The value before the first parameter, lowercased (`multipart/form-data`, `form-data`).
    let value: String
    /// The parameters by lowercased name, values as sent with quotes and escapes removed.
    let parameters: [String: String]

    /// Parses `text`; nil when it does not follow the grammar.
    init?(_ text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// Parses `bytes`; nil when they do not follow the grammar. Without `quotedPairs`, a backslash in a quoted
    /// string is a character like any other, as HTML's form encoding writes a multipart part's `name` and `filename`
    /// (it percent-encodes a quote as `%22` and leaves a backslash alone), rather than an escape.
    init?(bytes: [UInt8], quotedPairs: Bool = true) {
        var scanner = Scanner(bytes: bytes, quotedPairs: quotedPairs)
        scanner.skipWhitespace()
        let value = scanner.take { $0.isHTTPTokenByte || $0 == UInt8(ascii: "/") }
        guard !value.isEmpty, value.filter({ $0 == UInt8(ascii: "/") }).count <= 1 else { return nil }
        var parameters: [String: String] = [:]
        scanner.skipWhitespace()
        while !scanner.isAtEnd {
            guard scanner.skip(UInt8(ascii: ";")) else { return nil }
            scanner.skipWhitespace()
            let name = scanner.take(while: \.isHTTPTokenByte)
            guard !name.isEmpty, scanner.skip(UInt8(ascii: "=")) else { return nil }
            let key = String(decoding: name, as: UTF8.self).lowercased()
            guard parameters[key] == nil, let parameterValue = scanner.tokenOrQuotedString() else { return nil }
            parameters[key] = String(decoding: parameterValue, as: UTF8.self)
            scanner.skipWhitespace()
        }
        self.value = String(decoding: value, as: UTF8.self).lowercased()
        self.parameters = parameters
    }

    /// Reads bytes left to right.
    private struct Scanner {
        let bytes: [UInt8]
        /// Whether a backslash in a quoted string escapes the next byte.
        let quotedPairs: Bool
        var index = 0

        var isAtEnd: Bool { index == bytes.count }

        mutating func skipWhitespace() {
            while !isAtEnd, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard !isAtEnd, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func take(while accepts: (UInt8) -> Bool) -> ArraySlice<UInt8> {
            let start = index
            while !isAtEnd, accepts(bytes[index]) { index += 1 }
            return bytes[start..<index]
        }

        /// A token, or a quoted string (RFC 9110 §5.6.4) without its quotes (and escapes, with ``quotedPairs``); nil
        /// when neither.
        mutating func tokenOrQuotedString() -> [UInt8]? {
            guard skip(UInt8(ascii: "\"")) else {
                let token = take(while: \.isHTTPTokenByte)
                return token.isEmpty ? nil : Array(token)
            }
            var value: [UInt8] = []
            while !isAtEnd {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return value
                case UInt8(ascii: "\\") where quotedPairs:
                    guard !isAtEnd, bytes[index].isHTTPFieldValueByte else { return nil }
                    value.append(bytes[index])
                    index += 1
                case _ where byte.isHTTPFieldValueByte:
                    value.append(byte)
                default:
                    return nil
                }
            }
            return nil
        }
    }
}

extension UInt8 {
    /// Whether this byte is a `tchar` (RFC 9110 §5.6.2), the characters of a header name or token.
    var isHTTPTokenByte: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            Self.httpTokenSymbols.contains(self)
        }
    }

    /// The symbols among the `tchar`s.
    private static let httpTokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    /// Whether this byte may appear in a header value (RFC 9110 §5.5): visible ASCII, space, tab, or obs-text.
    var isHTTPFieldValueByte: Bool {
        self == UInt8(ascii: "\t") || (self >= 0x20 && self != 0x7F)
    }
}
