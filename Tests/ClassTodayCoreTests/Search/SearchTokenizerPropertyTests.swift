import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

@Suite("SearchTokenizer properties")
struct SearchTokenizerPropertyTests {
    private typealias Support = SearchTokenTestSupport

    private static let koreanWords = [
        "수학", "요가", "영", "영어", "가수", "수업", "기초", "파이썬", "피아노", "초등", "학생", "과외",
        "요", "가", "수", "업", "기타", "레슨", "커피", "바리스타", "반", "입문", "중급", "회화",
    ]
    private static let latinWords = [
        "Python", "python", "guitar", "Guitar", "GUI", "café", "CAFE", "Beginners", "for", "yoga",
        "math", "piano", "3D", "2024", "Straße", "naïve", "Привет", "日本", "a", "ab",
    ]
    private static let separators = [
        " ", " ", " ", "", "", "  ", "\n", ", ", "-", "/", "(", ")", "!", "\"", "*", ":", " NEAR ", " OR ", "\t", "\r\n", " \u{0B}", "\u{0C}",
    ]

    /// Random text of `count` vocabulary words joined by random separators (often no space at all).
    private static func randomText(_ count: Int, using random: inout SeededRandom) -> String {
        var text = ""
        for index in 0..<count {
            if index > 0 {
                text += separators.randomElement(using: &random)!
            }
            let vocabulary = Bool.random(using: &random) ? koreanWords : latinWords
            text += vocabulary.randomElement(using: &random)!
        }
        return text
    }

    /// A random stretch of `text`'s scalars (possibly cutting words and graphemes).
    private static func randomSlice(of text: String, using random: inout SeededRandom) -> String {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return text }
        let start = Int.random(in: 0..<scalars.count, using: &random)
        let end = Int.random(in: (start + 1)...min(scalars.count, start + 8), using: &random)
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }

    @Test("the FTS expression selects every document that matches")
    func ftsExpressionIsSuperset() throws {
        var random = SeededRandom(seed: 0x5EED_C1A5_5ED0)
        var checked = 0
        var positives = 0
        var failures = 0
        for _ in 0..<4000 {
            let document = Self.randomText(Int.random(in: 1...10, using: &random), using: &random)
            let text = Bool.random(using: &random)
                ? Self.randomSlice(of: document, using: &random)
                : Self.randomText(Int.random(in: 1...3, using: &random), using: &random)
            guard let query = SearchTokenizer.query(text) else { continue }
            checked += 1
            let tokens = SearchTokenizer.indexTokens(for: document)
            let expression = try #require(Support.parseMatchExpression(query.ftsMatchExpression))
            guard query.matches(document) else { continue }
            positives += 1
            if !expression.isSatisfied(by: tokens) {
                failures += 1
                Issue.record("FTS misses document \(document.debugDescription) for query \(text.debugDescription)")
                if failures >= 10 { break }
            }
        }
        #expect(checked > 3500)
        #expect(positives > 1000)
    }

    @Test("every index token and every required token is safe for FTS5 and PostgreSQL")
    func tokensAreSafe() {
        var random = SeededRandom(seed: 42)
        for _ in 0..<500 {
            let text = Self.randomText(Int.random(in: 1...8, using: &random), using: &random)
            let tokens = SearchTokenizer.indexTokens(for: text)
            let required = SearchTokenizer.query(text)?.tokenRequirements.map(\.token) ?? []
            for token in tokens + required where !Support.isSafeToken(token) {
                Issue.record("unsafe token \(token.debugDescription) from \(text.debugDescription)")
                return
            }
        }
    }

    @Test("text of ASCII and Hangul syllables only normalizes on its fast path exactly as through NFKC")
    func plainTextFastPath() {
        typealias Normalizer = SearchTokenizer.TextNormalizer
        var random = SeededRandom(seed: 11)
        // Every ASCII scalar, syllables from both ends of the block, and scalars the fast path must leave alone: a
        // compatibility jamo, conjoining jamo that compose with a syllable, a full-width letter, a soft hyphen, an
        // accented capital, a no-break space, an ideographic space and a zero-width space.
        let plain = (0...0x7F).map { Unicode.Scalar(UInt8($0)) } + ["가", "각", "힣", "수", "학", "\u{AC01}", "\u{D7A3}"]
        let other: [Unicode.Scalar] = ["ㅅ", "\u{1100}", "\u{1161}", "\u{11A8}", "Ａ", "\u{AD}", "É", "\u{A0}", "\u{3000}", "\u{200B}"]
        for round in 0..<3_000 {
            let alphabet = round % 4 == 0 ? plain + other : plain
            let scalars = (0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let text = String(String.UnicodeScalarView(scalars))
            let isPlain = scalars.allSatisfy { $0.isASCII || (0xAC00...0xD7A3).contains($0.value) }
            #expect((Normalizer.plainScalars(text) != nil) == isPlain, "\(text.debugDescription)")
            let normalized = Normalizer.normalizedScalars(text)
            let throughNFKC = Normalizer.collapseWhitespace(Normalizer.composedScalars(text))
            guard normalized == throughNFKC else {
                Issue.record("\(text.debugDescription) normalizes to \(normalized) on its fast path, \(throughNFKC) through NFKC")
                return
            }
        }
    }

    @Test("matching in a text's syllables agrees with matching its document, typos, initials and line breaks included")
    func syllableRunsRuleOutOnlyNonMatches() {
        var random = SeededRandom(seed: 0x5171_AB1E)
        var plainMatches = 0, plainMisses = 0
        for round in 0..<4_000 {
            // Half the documents are Korean and ASCII only, which the syllables rule out on; the others hold café,
            // Привет or 日本 now and then, and are cut into their document.
            var text = Self.randomText(Int.random(in: 1...10, using: &random), using: &random)
            if round % 2 == 0 {
                text = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII || HangulJamo.syllables.contains($0.value) }))
            }
            var asked = Self.randomSlice(of: text.replacingSpaces(), using: &random)
            switch round % 4 {
            case 0: asked = Self.koreanWords.randomElement(using: &random)!
            case 1: asked = Self.oneJamoOff(asked, using: &random)
            case 2: asked = Self.someInitials(asked, using: &random)
            default: break
            }
            guard let query = SearchTokenizer.query(asked) else { continue }
            let matches = query.matches(text)
            guard matches == query.matches(SearchTokenizer.Document(text: text)) else {
                Issue.record("\(asked.debugDescription) in \(text.debugDescription): \(matches) from the text, not from its document")
                return
            }
            if SearchTokenizer.SyllableRuns(text: text) != nil {
                if matches { plainMatches += 1 } else { plainMisses += 1 }
            }
        }
        #expect(plainMatches > 500)
        #expect(plainMisses > 500)
    }

    /// `text` with one of its Hangul syllables changed in one jamo, when it has one.
    private static func oneJamoOff(_ text: String, using random: inout SeededRandom) -> String {
        var scalars = Array(text.unicodeScalars)
        guard let index = scalars.indices.filter({ HangulJamo.syllables.contains(scalars[$0].value) }).randomElement(using: &random)
        else { return text }
        let offset = scalars[index].value - 0xAC00
        let (initial, vowel, final) = (offset / 588, offset % 588 / 28, offset % 28)
        let changed = switch Int.random(in: 0..<3, using: &random) {
        case 0: (initial + 1) % 19 * 588 + vowel * 28 + final
        case 1: initial * 588 + (vowel + 1) % 21 * 28 + final
        default: initial * 588 + vowel * 28 + (final + 1) % 28
        }
        scalars[index] = Unicode.Scalar(0xAC00 + changed)!
        return String(String.UnicodeScalarView(scalars))
    }

    /// `text` with some of its Hangul syllables typed as their initial consonant alone (`수학` as `ㅅ학`).
    private static func someInitials(_ text: String, using random: inout SeededRandom) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            guard HangulJamo.syllables.contains(scalar.value), Bool.random(using: &random) else { return scalar }
            return HangulJamo.initials[Int(scalar.value - 0xAC00) / 588]
        }))
    }

    @Test("a document matches the query made of its own text")
    func documentMatchesItself() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let text = Self.randomText(Int.random(in: 1...8, using: &random), using: &random)
            if let query = SearchTokenizer.query(text), !query.matches(text) {
                Issue.record("\(text.debugDescription) does not match itself")
                return
            }
        }
    }

    @Test("for Korean text on one line, matching is substring search with spaces removed (a typo allowed in 3+ syllables)")
    func koreanMatchesSpacelessSubstring() {
        var random = SeededRandom(seed: 2024)
        for _ in 0..<1000 {
            let document = (0..<Int.random(in: 1...6, using: &random))
                .map { _ in Self.koreanWords.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? " " : "")
            let queryWords = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                Bool.random(using: &random)
                    ? Self.koreanWords.randomElement(using: &random)!
                    : Self.randomSlice(of: document.replacingSpaces(), using: &random)
            }
            let query = SearchTokenizer.query(queryWords.joined(separator: " "))
            let spaceless = document.replacingSpaces()
            let expected = queryWords.allSatisfy { word in
                KoreanInitialsAndTyposTests.bruteForceOccurs(Array(word.replacingSpaces().unicodeScalars), in: Array(spaceless.unicodeScalars))
            }
            if query?.matches(document) != expected {
                Issue.record("\(queryWords) in \(document.debugDescription): expected \(expected)")
                return
            }
        }
    }
}

private extension String {
    /// The string without its spaces.
    func replacingSpaces() -> String {
        String(String.UnicodeScalarView(unicodeScalars.filter { $0 != " " }))
    }
}
