import Foundation

/// Generates opaque, time-ordered identifiers (ULID layout: 48-bit milliseconds then 80 random bits,
/// 26 Crockford base32 characters), so that sorting by id roughly follows creation order.
public enum Identifier {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new identifier for the given creation time.
    public static func make(at date: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(at: date, using: &generator)
    }

    /// A new identifier for the given creation time, drawing randomness from `generator`.
    public static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000)) & 0xFFFF_FFFF_FFFF
        let high = UInt16.random(in: .min ... .max, using: &generator)
        let low = UInt64.random(in: .min ... .max, using: &generator)
        // 128 bits: 48 time | 16 high random | 64 low random.
        let upper: UInt64 = (milliseconds << 16) | UInt64(high)
        return text(packed: UInt128(upper) << 64 | UInt128(low))
    }

    /// The identifier whose 128 bits are `packed` (``packed(_:)``): 26 characters of 5 bits each, most significant
    /// first (130 bits, the top 2 zero).
    public static func text(packed: UInt128) -> String {
        String(unsafeUninitializedCapacity: 26) { characters in
            for index in 0..<26 {
                characters[index] = alphabet[Int(truncatingIfNeeded: (packed >> UInt128(125 - index * 5)) & 0x1F)]
            }
            return 26
        }
    }

    /// The 128 bits of an identifier made by ``make(at:)``, ordered as the identifiers' text is (byte by byte); nil
    /// for any other text, or one whose first character is beyond `7` (more than 128 bits).
    public static func packed(_ text: String) -> UInt128? {
        var packed: UInt128 = 0
        var count = 0
        for byte in text.utf8 {
            guard count < 26, let value = digits[Int(byte)] else { return nil }
            if count == 0, value > 7 { return nil }
            packed = packed << 5 | UInt128(value)
            count += 1
        }
        return count == 26 ? packed : nil
    }

    /// Each byte's value in ``alphabet``, or nil.
    private static let digits: [UInt8?] = (0..<256).map { byte in alphabet.firstIndex(of: UInt8(byte)).map { UInt8($0) } }

    /// Whether `text` has the shape of an identifier made by ``make(at:)``.
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 26 && bytes.allSatisfy { alphabet.contains($0) }
    }
}
