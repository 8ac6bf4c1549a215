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
        // 128 bits: 48 time | 16 high random | 64 low random, emitted 5 bits at a time (130 bits, top 2 zero).
        let upper: UInt64 = (milliseconds << 16) | UInt64(high)
        var characters = [UInt8](repeating: 0, count: 26)
        for index in 0..<26 {
            let bitOffset = 125 - index * 5 // position of the chunk's lowest bit, counting from bit 0 of `low`
            let value: UInt64
            if bitOffset >= 64 {
                value = (upper >> UInt64(bitOffset - 64)) & 0x1F
            } else if bitOffset + 5 <= 64 {
                value = (low >> UInt64(bitOffset)) & 0x1F
            } else {
                let lowBits = 64 - bitOffset
                value = ((upper << UInt64(lowBits)) | (low >> UInt64(bitOffset))) & 0x1F
            }
            characters[index] = alphabet[Int(value)]
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether `text` has the shape of an identifier made by ``make(at:)``.
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 26 && bytes.allSatisfy { alphabet.contains($0) }
    }
}
