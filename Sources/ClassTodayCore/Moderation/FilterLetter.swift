import Foundation

/// The parts a letter can play: its place in a Hangul syllable, a lone jamo, or a Latin letter.
struct LetterRoles: OptionSet, Hashable, Sendable {
    let rawValue: UInt8

    /// The consonant that starts a syllable (never the silent ㅇ, which the filter drops).
    static let initial = LetterRoles(rawValue: 1 << 0)
    /// The vowel of a syllable.
    static let vowel = LetterRoles(rawValue: 1 << 1)
    /// A consonant that ends a syllable.
    static let final = LetterRoles(rawValue: 1 << 2)
    /// A jamo written on its own (`ㅅ`, `ㅣ`), not inside a syllable.
    static let bare = LetterRoles(rawValue: 1 << 3)
    /// A Latin letter (or a digit or sign standing for one).
    static let latin = LetterRoles(rawValue: 1 << 4)
}

/// One letter as the filter compares it: folded (case, tense consonants, look-alikes) and with its roles.
struct FilterLetter: Hashable, Sendable {
    /// The folded letter: a compatibility jamo or `a`–`z`.
    var value: Unicode.Scalar
    /// What the letter does where it stands; a run of repeated letters merged into one has the roles of all.
    var roles: LetterRoles
    /// Whether a word may begin at this letter: the first written letter of a syllable, a lone jamo or a Latin letter.
    var startsSyllable: Bool
}

/// The two scripts the filter reads; an entry of the list is written in one of them.
enum FilterScript: Sendable {
    /// Korean: jamo compatibility letters.
    case hangul
    /// English: `a`–`z`.
    case latin
}

/// What a character is in an English word: whether its Latin reading is a letter, a digit or a sign. A character
/// that holds several (`½` is `1⁄2`) takes the last case in this order.
enum LatinKind: Comparable, Sendable {
    /// Not part of an English word: white space, Hangul, punctuation that reads as no letter, other scripts.
    case none
    /// A sign that reads as a letter: `$`, `@`, `!`, `|`.
    case sign
    /// A digit `0`–`9` (also fullwidth), whether or not it reads as a letter.
    case digit
    /// A letter that reads as a Latin letter: `a`–`z` in any case or width, with diacritics, or a Cyrillic look-alike.
    case letter
}

/// What one character of a text gives the filter.
struct FilterCharacter: Sendable {
    /// The jamo of a Hangul syllable or lone jamo, in writing order.
    var hangul: [FilterLetter] = []
    /// The Latin letters the character reads as (`ß` → `ss`, `4` → `a`, Cyrillic `с` → `c`). A digit's letters
    /// count only where ``FilterText`` says so: inside an English word, not beside Hangul.
    var latin: [FilterLetter] = []
    /// Whether the character is a Latin letter, a digit, a look-alike sign or none of these.
    var latinKind = LatinKind.none
    /// Whether the character is white space: what separates words.
    var isSpace = false
    /// Whether the character is a letter or digit outside Hangul: what continues an English word. Signs that read
    /// as letters (`$`, `@`, `!`) do not.
    var isLatinWordCharacter = false

    /// Whether the character is Hangul: a syllable or a lone jamo.
    var isHangul: Bool {
        !hangul.isEmpty
    }

    /// Reads `character`.
    init(_ character: Character) {
        if character.isWhitespace {
            isSpace = true
            return
        }
        let scalars = character.unicodeScalars
        let isHangul = scalars.contains { HangulJamo.decompose($0) != nil || HangulJamo.compatibilityLetter($0) != nil }
        let normalized: [Unicode.Scalar] = if character.isASCII {
            Array(String(character).lowercased().unicodeScalars)
        } else if isHangul {
            Array(String(character).precomposedStringWithCanonicalMapping.unicodeScalars)
        } else {
            // NFKC, lower case, diacritics removed: fullwidth `ｆ`, `é` and `ﬁ` read as `f`, `e` and `fi`.
            SearchTokenizer.TextNormalizer.normalizedScalars(String(character))
        }
        for scalar in normalized {
            read(scalar)
        }
    }

    private mutating func read(_ scalar: Unicode.Scalar) {
        if let (initial, vowel, final) = HangulJamo.decompose(scalar) {
            let silent = initial == HangulJamo.silentInitial
            if !silent {
                append(initial, .initial, startsSyllable: true)
            }
            append(vowel, .vowel, startsSyllable: silent)
            if let final { append(final, .final, startsSyllable: false) }
        } else if let letter = HangulJamo.compatibilityLetter(scalar) {
            append(letter, .bare, startsSyllable: true)
        } else if let letter = Self.latinReading[scalar] {
            latin.append(FilterLetter(value: letter, roles: .latin, startsSyllable: true))
            isLatinWordCharacter = isLatinWordCharacter || scalar.properties.isAlphabetic || Self.isDigit(scalar)
            latinKind = max(latinKind, Self.isDigit(scalar) ? .digit : scalar.properties.isAlphabetic ? .letter : .sign)
        } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
            isLatinWordCharacter = true
            if Self.isDigit(scalar) { latinKind = max(latinKind, .digit) }
        }
    }

    /// Whether `scalar` is one of the digits `0`–`9` (fullwidth digits arrive here already folded).
    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    private mutating func append(_ letter: Unicode.Scalar, _ roles: LetterRoles, startsSyllable: Bool) {
        for (offset, part) in HangulJamo.folded(letter).enumerated() {
            hangul.append(FilterLetter(value: part, roles: roles, startsSyllable: startsSyllable && offset == 0))
        }
    }

    /// How lower-case letters, digits, signs and Cyrillic look-alikes read as Latin letters. `l`, `1`, `!` and `|`
    /// all read as `i` (they stand for each other in disguised spellings); `0` → `o`, `3` → `e`, `4` and `@` → `a`,
    /// `5` and `$` → `s`, `7` → `t`. Other digits and signs read as nothing (they may separate letters). A digit's
    /// reading counts only inside an English word (see ``FilterText``), so `4시 55분` and `010-4555-6655` read as no
    /// letters.
    static let latinReading: [Unicode.Scalar: Unicode.Scalar] = {
        var reading: [Unicode.Scalar: Unicode.Scalar] = [:]
        for value in UInt8(ascii: "a")...UInt8(ascii: "z") {
            reading[Unicode.Scalar(value)] = Unicode.Scalar(value)
        }
        let lookAlikes: [Unicode.Scalar: Unicode.Scalar] = [
            "l": "i", "1": "i", "!": "i", "|": "i", "0": "o", "3": "e", "4": "a", "@": "a", "5": "s", "$": "s", "7": "t",
            // Cyrillic letters drawn like Latin ones.
            "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
            "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
        ]
        reading.merge(lookAlikes) { _, lookAlike in lookAlike }
        return reading
    }()
}
