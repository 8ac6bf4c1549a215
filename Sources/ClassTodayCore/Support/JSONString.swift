/// JSON strings for JSON written by hand, byte by byte, where `JSONEncoder` costs more than the value it writes
/// (response pages, cursors, lists bound to a statement).
public enum JSONString {
    /// Appends `value` as a quoted JSON string to UTF-8 `bytes`: quotes, backslashes and control characters escaped,
    /// anything else (slashes, every non-ASCII character) as it is.
    public static func append(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = value.utf8
        // Most strings need no escape: scanned and copied as one buffer (a native string's own bytes), not byte by byte.
        let copied = utf8.withContiguousStorageIfAvailable { buffer in
            guard !anyNeedsEscape(buffer) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        guard copied != true else {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                let hex = String(byte, radix: 16)
                bytes.append(contentsOf: (#"\u"# + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default:
                // Bytes of multi-byte characters are all 0x80 or more: copied as they are.
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any byte of `buffer` must be escaped. The bytes' checks are or-ed together with no early exit, which
    /// the compiler turns into vector instructions: 14 ns for a 300-byte description, where stopping at the first
    /// match (`contains(where:)`) took 110 ns and `SIMD16<UInt8>` comparisons 3.2 µs.
    private static func anyNeedsEscape(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var found: UInt8 = 0
        for byte in buffer {
            found |= (byte < 0x20 ? 1 : 0) | (byte == UInt8(ascii: "\"") ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0)
        }
        return found != 0
    }

    /// Whether `byte` must be escaped in a JSON string: a quote, a backslash or a control character.
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Appends `value` as a quoted JSON string to `text` (JSON built as text: rows bound to a statement).
    public static func append(_ value: String, to text: inout String) {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `values` as a JSON array of strings to UTF-8 `bytes`.
    public static func append(array values: [String], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
