import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Initial-consonant search (`ㅅㅎ` finds `수학`) and one-jamo typo tolerance (`피아너` finds `피아노`), checked on
/// examples and against a brute force written here from the Unicode arithmetic of Hangul syllables.
@Suite("Korean initial consonants and typos")
struct KoreanInitialsAndTyposTests {
    private typealias Support = SearchTokenTestSupport

    /// The 19 leading consonants as a keyboard types them alone (compatibility jamo), in syllable order.
    static let initials = Array("ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ".unicodeScalars)

    static let words = [
        "수학", "실험", "기타", "과외", "피아노", "바리스타", "커피", "요가", "영어회화", "초등", "학생", "수업", "코딩",
        "파이썬", "기초", "서핑", "사진", "소환", "숙제", "수하물", "피아니스트", "드럼", "도예", "댄스",
    ]

    /// A syllable's leading consonant, vowel and trailing consonant indices.
    static func jamo(_ syllable: Unicode.Scalar) -> (Int, Int, Int)? {
        let value = Int(syllable.value) - 0xAC00
        guard (0..<11_172).contains(value) else { return nil }
        return (value / 588, value % 588 / 28, value % 28)
    }

    /// Whether `query` (syllables and consonants typed alone) occurs in `text` (syllables, spaces removed) by the
    /// rules the search promises.
    static func bruteForceOccurs(_ query: [Unicode.Scalar], in text: [Unicode.Scalar]) -> Bool {
        guard !query.isEmpty, text.count >= query.count else { return query.isEmpty }
        let usesInitials = query.count >= 2 && query.contains { initials.contains($0) }
        let allowsTypo = (3...12).contains(query.count) && query.allSatisfy { jamo($0) != nil }
        return (0...(text.count - query.count)).contains { start in
            var typos = 0
            for (offset, wanted) in query.enumerated() {
                let found = text[start + offset]
                if wanted == found { continue }
                if usesInitials, let index = initials.firstIndex(of: wanted), let parts = jamo(found), parts.0 == index { continue }
                if allowsTypo, let a = jamo(wanted), let b = jamo(found),
                   [a.0 != b.0, a.1 != b.1, a.2 != b.2].filter({ $0 }).count == 1, typos == 0 {
                    typos += 1
                    continue
                }
                return false
            }
            return true
        }
    }

    @Test("initial consonants find the words they start", arguments: [
        ("ㅅㅎ", "수학 과외", true), ("ㅅㅎ", "실험 교실", true), ("ㄱㅌ", "기타 레슨", true), ("수ㅎ", "수학", true),
        ("수ㅎ", "실험", false), ("ㅅ학", "수학", true), ("ㅍㅇㄴ", "피아노 입문", true), ("ㅍㅇㄴ", "피아 노래", true),
        ("ㅅㅎ", "수 학", true), ("ㅅㅎ", "수\n학", false), ("ㅎㅅ", "수학", false), ("ㅅ", "수학", false),
        ("ㅅ", "ㅅ 모음", true), ("ㅋㅋ", "ㅋㅋ 재밌어요", true), ("ㄱㅌ", "guitar", false),
    ])
    func initialConsonants(query text: String, document: String, expected: Bool) throws {
        try Self.check(text, in: document, expected: expected)
    }

    /// Parses `text`, checks that it matches `document` as `expected`, and that the index selects it when it matches;
    /// returns the query.
    @discardableResult
    static func check(_ text: String, in document: String, expected: Bool) throws -> SearchQuery {
        let query = try #require(SearchTokenizer.query(text))
        #expect(query.matches(document) == expected)
        let expression = try #require(Support.parseMatchExpression(query.ftsMatchExpression))
        if expected {
            #expect(expression.isSatisfied(by: SearchTokenizer.indexTokens(for: document)), "the index finds what matches")
        }
        return query
    }

    @Test("a word of three syllables or more tolerates one jamo typed wrong, never two, and short words none", arguments: [
        ("피아너", "피아노 레슨", true), ("바리스터", "바리스타 자격증", true), ("피아노", "피아노", true), ("파이선", "파이썬 기초", true),
        ("영어회하", "영어회화", true), ("수하물", "수학물", true), ("피어너", "피아노", false), ("피아", "피어", false),
        ("피아노", "피아", false), ("수항", "수학", false), ("피아노오", "피아노", false), ("바리스카", "바리스타", true),
    ])
    func typos(query text: String, document: String, expected: Bool) throws {
        let query = try Self.check(text, in: document, expected: expected)
        #expect(query.needsVerification == (text.count >= 3), "typos are confirmed after the index's coarser condition")
    }

    @Test("two syllables differ by one jamo exactly when one of their decomposed leading consonant, vowel and final does")
    func oneJamoApart() {
        var random = SeededRandom(seed: 5)
        let syllables = (0..<3_000).map { _ in Unicode.Scalar(UInt32.random(in: 0xAC00...0xD7A3, using: &random))! }
        for (first, second) in zip(syllables, syllables.shuffled(using: &random)) + [("노", "너"), ("가", "각"), ("가", "가"), ("가", "a"), ("힣", "히")] {
            let (a, b) = (HangulJamo.decompose(first), HangulJamo.decompose(second))
            let expected = a.flatMap { a in b.map { b in [a.initial != b.initial, a.vowel != b.vowel, a.final != b.final].filter { $0 }.count == 1 } } ?? false
            #expect(HangulJamo.differByOneJamo(first, second) == expected, "\(first) \(second)")
            // Neighbours in the block differ in their final, or across a vowel or consonant boundary.
            let neighbour = Unicode.Scalar(min(first.value + 1, 0xD7A3))!
            let c = HangulJamo.decompose(neighbour)!
            #expect(HangulJamo.differByOneJamo(first, neighbour) == ([a!.initial != c.initial, a!.vowel != c.vowel, a!.final != c.final].filter { $0 }.count == 1))
        }
    }

    @Test("ASCII and Hangul syllables are classed without property lookups as the lookups class them")
    func plainScalarClasses() {
        for value in Array(0x00...0x7F) + Array(0xAC00...0xD7A3) {
            let scalar = Unicode.Scalar(UInt32(value))!
            #expect(SearchTokenizer.TextNormalizer.isWhitespace(scalar) == scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
        }
        for value in Array(0x00...0x7F) + Array(0xAC00...0xD7A3) {
            let scalar = Unicode.Scalar(UInt32(value))!
            #expect(SearchTokenizer.Lexer.scalarClass(scalar) == SearchTokenizer.Lexer.classByProperties(scalar), "U+\(String(value, radix: 16))")
        }
    }

    @Test("random queries with initials and typos: matching equals the brute force, and the index selects every match")
    func againstBruteForce() throws {
        var random = SeededRandom(seed: 0x1A1A_5E5E)
        var positives = 0
        for _ in 0..<3000 {
            let document = (0..<Int.random(in: 1...5, using: &random)).map { _ in Self.words.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? " " : "")
            let text = Array(document.unicodeScalars.filter { $0 != " " })
            let start = Int.random(in: 0..<text.count, using: &random)
            var query = Array(text[start..<min(text.count, start + Int.random(in: 1...6, using: &random))])
            for index in query.indices {
                switch Int.random(in: 0..<8, using: &random) {
                case 0, 1: query[index] = Self.initials[Self.jamo(query[index])!.0]
                case 2:
                    // One jamo changed: the vowel, which every syllable has.
                    if let (lead, vowel, trail) = Self.jamo(query[index]) {
                        query[index] = Unicode.Scalar(UInt32(0xAC00 + lead * 588 + (vowel + 1) % 21 * 28 + trail))!
                    }
                default: break
                }
            }
            let queryText = String(String.UnicodeScalarView(query))
            let parsed = try #require(SearchTokenizer.query(queryText))
            let expected = Self.bruteForceOccurs(Array(SearchTokenizer.normalize(queryText).unicodeScalars).map(Self.compatible), in: text)
            if parsed.matches(document) != expected {
                Issue.record("\(queryText.debugDescription) in \(document.debugDescription): expected \(expected)")
                return
            }
            guard expected else { continue }
            positives += 1
            let expression = try #require(Support.parseMatchExpression(parsed.ftsMatchExpression))
            if !expression.isSatisfied(by: SearchTokenizer.indexTokens(for: document)) {
                Issue.record("the index misses \(document.debugDescription) for \(queryText.debugDescription)")
                return
            }
        }
        #expect(positives > 1000)
    }

    /// A leading consonant as normalization leaves it (U+1100...) spelled back as the keyboard's consonant.
    static func compatible(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (0x1100...0x1112).contains(scalar.value) ? initials[Int(scalar.value - 0x1100)] : scalar
    }
}
