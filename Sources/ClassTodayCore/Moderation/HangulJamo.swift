/// Hangul syllables taken apart into their letters (jamo) by Unicode arithmetic: a precomposed syllable
/// U+AC00 + (initial × 21 + vowel) × 28 + final. Every letter is given as its compatibility jamo
/// (U+3131–U+3163, what a keyboard types alone), whatever form the text used.
enum HangulJamo {
    /// The first precomposed syllable, 가.
    static let syllableBase: UInt32 = 0xAC00
    /// The number of precomposed syllables.
    static let syllableCount: UInt32 = 11_172
    /// The code points of the precomposed syllables, U+AC00–U+D7A3.
    static let syllables: ClosedRange<UInt32> = syllableBase...(syllableBase + syllableCount - 1)
    /// ㅇ, silent at the start of a syllable.
    static let silentInitial: Unicode.Scalar = "ㅇ"

    /// The 19 initial consonants, in syllable order.
    static let initials: [Unicode.Scalar] = [
        "ㄱ", "ㄲ", "ㄴ", "ㄷ", "ㄸ", "ㄹ", "ㅁ", "ㅂ", "ㅃ", "ㅅ", "ㅆ", "ㅇ", "ㅈ", "ㅉ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ",
    ]
    /// The 21 vowels, in syllable order.
    static let vowels: [Unicode.Scalar] = [
        "ㅏ", "ㅐ", "ㅑ", "ㅒ", "ㅓ", "ㅔ", "ㅕ", "ㅖ", "ㅗ", "ㅘ", "ㅙ", "ㅚ", "ㅛ", "ㅜ", "ㅝ", "ㅞ", "ㅟ", "ㅠ", "ㅡ", "ㅢ", "ㅣ",
    ]
    /// The 27 final consonants, in syllable order (final index 0 is "no final").
    static let finals: [Unicode.Scalar] = [
        "ㄱ", "ㄲ", "ㄳ", "ㄴ", "ㄵ", "ㄶ", "ㄷ", "ㄹ", "ㄺ", "ㄻ", "ㄼ", "ㄽ", "ㄾ", "ㄿ", "ㅀ", "ㅁ", "ㅂ", "ㅄ", "ㅅ", "ㅆ",
        "ㅇ", "ㅈ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ",
    ]

    /// The parts of a precomposed syllable, or nil for any other scalar.
    static func decompose(_ scalar: Unicode.Scalar) -> (initial: Unicode.Scalar, vowel: Unicode.Scalar, final: Unicode.Scalar?)? {
        guard scalar.value >= syllableBase, scalar.value < syllableBase + syllableCount else { return nil }
        let index = Int(scalar.value - syllableBase)
        let final = index % 28
        return (initials[index / 588], vowels[(index % 588) / 28], final == 0 ? nil : finals[final - 1])
    }

    /// The compatibility jamo of a lone letter: itself (U+3131–U+3163) or a conjoining jamo (U+1100 block) mapped to it.
    static func compatibilityLetter(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        switch value {
        case 0x3131...0x3163: return scalar
        case 0x1100...0x1112: return initials[Int(value - 0x1100)]
        case 0x1161...0x1175: return vowels[Int(value - 0x1161)]
        case 0x11A8...0x11C2: return finals[Int(value - 0x11A8)]
        default: return nil
        }
    }

    /// Whether `letter` (a compatibility jamo) is a consonant.
    static func isConsonant(_ letter: Unicode.Scalar) -> Bool {
        (0x3131...0x314E).contains(letter.value)
    }

    /// `letter` as the filter compares it: tense consonants as plain ones (ㅆ → ㅅ), ㅔ and ㅖ as ㅐ and ㅒ (often
    /// confused in writing), and a double final as its two consonants (ㄳ → ㄱ ㅅ).
    static func folded(_ letter: Unicode.Scalar) -> [Unicode.Scalar] {
        switch letter {
        case "ㄲ": ["ㄱ"]
        case "ㄸ": ["ㄷ"]
        case "ㅃ": ["ㅂ"]
        case "ㅆ": ["ㅅ"]
        case "ㅉ": ["ㅈ"]
        case "ㅔ": ["ㅐ"]
        case "ㅖ": ["ㅒ"]
        case "ㄳ": ["ㄱ", "ㅅ"]
        case "ㄵ": ["ㄴ", "ㅈ"]
        case "ㄶ": ["ㄴ", "ㅎ"]
        case "ㄺ": ["ㄹ", "ㄱ"]
        case "ㄻ": ["ㄹ", "ㅁ"]
        case "ㄼ": ["ㄹ", "ㅂ"]
        case "ㄽ": ["ㄹ", "ㅅ"]
        case "ㄾ": ["ㄹ", "ㅌ"]
        case "ㄿ": ["ㄹ", "ㅍ"]
        case "ㅀ": ["ㄹ", "ㅎ"]
        case "ㅄ": ["ㅂ", "ㅅ"]
        default: [letter]
        }
    }
}
