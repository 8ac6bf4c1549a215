import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Digits read as letters only among Latin letters: times, dates, prices and phone numbers in Korean text are never
/// masked or refused, while `sh1t`-style spellings are still found.
@Suite("BannedWordFilter and numbers")
struct BannedWordFilterNumberTests {
    /// The texts of `texts` that the shipped list or the small list of ``BannedWordFilterTests`` masks or refuses
    /// (both have `ass` as a whole word).
    static func flagged(_ texts: [String]) throws -> [String] {
        let filters = [try ShippedBannedWords.filter(), BannedWordFilterTests.filter]
        return texts.filter { text in filters.contains { !$0.allows(text) || $0.masked(text) != text } }
    }

    @Test("the texts of issue 64 pass unchanged", arguments: KoreanNumberTexts.reported)
    func reported(text: String) throws {
        #expect(try Self.flagged([text]) == [])
    }

    @Test("hand-written class texts and chat lines with numbers pass unchanged", arguments: KoreanNumberTexts.handWritten)
    func handWritten(text: String) throws {
        #expect(try Self.flagged([text]) == [])
    }

    @Test("400 class texts and chat lines from templates with numbers pass unchanged")
    func generated() throws {
        let texts = KoreanNumberTexts.generated(count: 400, seed: 64)
        #expect(Set(texts).count > 350)
        #expect(try Self.flagged(texts) == [])
    }

    @Test("digits among Latin letters still read as letters", arguments: [
        "f4gg0t", "sh1t", "5hit", "SH1T", "5h1t", "sh17", "a55hole", "4sshole", "@55hole", "4$$hole", "a55", "b1tch",
        "b4st4rd", "5lut", "d1ck", "fuck3r", "진짜 sh1t", "sh1t이야", "b1tch 오후 4시", "ｓｈ１ｔ",
    ])
    func lookAlikeDigits(text: String) throws {
        #expect(!(try ShippedBannedWords.filter().allows(text)))
    }

    @Test("masking hides the disguised word and keeps the numbers around it")
    func maskingBesideNumbers() throws {
        let filter = try ShippedBannedWords.filter()
        #expect(filter.masked("sh1t 4시 55분") == "**** 4시 55분")
        #expect(filter.masked("오후 4시 b1tch 010-4555-6655") == "오후 4시 ***** 010-4555-6655")
        #expect(filter.masked("a55 455") == "*** 455")
    }

    @Test("digits beside Hangul read as no letters, even with a Latin letter on their other side")
    func digitsBesideHangul() throws {
        #expect(try Self.flagged(["갤럭시 A55로 찍었어요", "a55이", "시5hit"]) == [])
    }

    @Test("random texts of Hangul, digits and number signs are never flagged")
    func randomNumberTexts() throws {
        let alphabet = Array("4501378 -.,:/~%()시분원층호번일월년세")
        var random = SeededRandom(seed: 455)
        let texts = (0..<3_000).map { _ in
            String((0..<Int.random(in: 1...20, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        #expect(try Self.flagged(texts) == [])
    }

    @Test("the Latin letter stream agrees with a brute-force reading of the digit rule")
    func latinStreamMatchesReference() {
        var random = SeededRandom(seed: 1_337)
        for _ in 0..<3_000 {
            let text = String((0..<Int.random(in: 0...16, using: &random)).map { _ in
                ReferenceReading.alphabet.randomElement(using: &random)!
            })
            let read = FilterText(text).latin.map { ReferenceReading.Letter(offset: $0.offset, value: $0.letter.value) }
            #expect(read == ReferenceReading.letters(of: Array(text)), "\(text)")
        }
    }
}

/// The digit rule written the slow, obvious way, over a small alphabet: a digit reads as its letter when the digits
/// written together with it touch no Hangul and the letters, digits and signs written together with it hold a letter.
enum ReferenceReading {
    /// A letter read from the character at `offset`.
    struct Letter: Equatable {
        /// The character's offset.
        let offset: Int
        /// The folded letter.
        let value: Unicode.Scalar
    }

    /// Latin letters (a fullwidth one among them) and how they read.
    static let letters: [Character: Unicode.Scalar] = ["a": "a", "s": "s", "h": "h", "T": "t", "Ｋ": "k"]
    /// Digits (a fullwidth one among them) and how they read where they count; `8` reads as nothing.
    static let digits: [Character: Unicode.Scalar?] = ["4": "a", "5": "s", "1": "i", "0": "o", "8": nil, "４": "a"]
    /// Signs that read as letters.
    static let signs: [Character: Unicode.Scalar] = ["$": "s", "@": "a", "!": "i"]
    /// Hangul syllables and a lone jamo.
    static let hangul: Set<Character> = ["시", "분", "ㅋ"]
    /// Every character the random texts are made of: the above, white space, other signs and an emoji.
    static let alphabet = Array(letters.keys) + Array(digits.keys) + Array(signs.keys) + Array(hangul) + [" ", "-", ".", ":", "😀"]

    /// The Latin letters of `characters`, in order, by the rule.
    static func letters(of characters: [Character]) -> [Letter] {
        characters.indices.compactMap { offset in
            let character = characters[offset]
            let value: Unicode.Scalar? = if let digit = digits[character] {
                digitCounts(at: offset, in: characters) ? digit : nil
            } else {
                letters[character] ?? signs[character]
            }
            return value.map { Letter(offset: offset, value: $0) }
        }
    }

    /// Whether the digit at `offset` reads as a letter.
    private static func digitCounts(at offset: Int, in characters: [Character]) -> Bool {
        let run = stretch(around: offset, in: characters) { digits.keys.contains($0) }
        let besideHangul = [run.lowerBound - 1, run.upperBound + 1].contains {
            characters.indices.contains($0) && hangul.contains(characters[$0])
        }
        let word = stretch(around: offset, in: characters) {
            digits.keys.contains($0) || letters[$0] != nil || signs[$0] != nil
        }
        return !besideHangul && characters[word].contains { letters[$0] != nil }
    }

    /// The offsets around `offset` whose characters all satisfy `belongs`.
    private static func stretch(around offset: Int, in characters: [Character], _ belongs: (Character) -> Bool) -> ClosedRange<Int> {
        var start = offset
        var end = offset
        while start > 0, belongs(characters[start - 1]) { start -= 1 }
        while end + 1 < characters.count, belongs(characters[end + 1]) { end += 1 }
        return start...end
    }
}
