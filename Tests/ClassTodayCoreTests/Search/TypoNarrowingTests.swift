import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// A typo-tolerant word's index condition narrowed by the bigrams the index holds (``SearchQuery/narrowing(toBigramsIn:)``):
/// it must still select every listing the word matches, and should select few that it does not.
@Suite("Typo-tolerant words narrowed by the index's bigrams")
struct TypoNarrowingTests {
    private typealias Support = SearchTokenTestSupport
    private typealias Brute = KoreanInitialsAndTyposTests

    /// Whether `query`'s index expression selects `document`.
    static func selects(_ query: SearchQuery, _ document: String) throws -> Bool {
        try #require(Support.parseMatchExpression(query.ftsMatchExpression)).isSatisfied(by: SearchTokenizer.indexTokens(for: document))
    }

    /// The Hangul bigrams of `listing`'s index tokens.
    static func bigrams(of listing: String) -> Set<String> {
        SearchTokenizer.syllableBigrams(inIndexText: SearchTokenizer.indexText(for: listing))
    }

    /// `text` with one syllable's leading consonant, vowel or final consonant changed at random.
    static func misspelled(_ text: [Unicode.Scalar], using random: inout SeededRandom) -> [Unicode.Scalar] {
        var text = text
        let index = Int.random(in: text.indices, using: &random)
        if let neighbour = HangulJamo.oneJamoAway(from: text[index]).randomElement(using: &random) { text[index] = neighbour }
        return text
    }

    @Test("the syllables one jamo away are the 65 that differ in exactly one of leading consonant, vowel and final")
    func oneJamoAway() {
        var random = SeededRandom(seed: 65)
        let everySyllable = (UInt32(0xAC00)...0xD7A3).map { Unicode.Scalar($0)! }
        for _ in 0..<20 {
            let syllable = everySyllable.randomElement(using: &random)!
            let expected = everySyllable.filter { HangulJamo.differByOneJamo(syllable, $0) }
            #expect(HangulJamo.oneJamoAway(from: syllable).sorted { $0.value < $1.value } == expected)
            #expect(expected.count == 65)
        }
        #expect(HangulJamo.oneJamoAway(from: "a").isEmpty)
    }

    @Test("a typo no listing's bigrams can hold is not looked for: 없는말 leaves out texts holding 없 and 말 apart until a listing holds 없는맘")
    func examples() throws {
        var listings = ["경험 없는 분 환영. 말씀 주세요", "없는말", "할 말 없는 모임", "공업수학 과외", "수학 공부", "없는맘 카페"]
        let coarse = try #require(SearchTokenizer.query("없는말"))
        #expect(coarse.typoBigrams.contains("는맘") && coarse.typoBigrams.contains("없느") && !coarse.typoBigrams.contains("없는"))
        #expect(try listings.map { try Self.selects(coarse, $0) } == [true, true, true, false, false, true])

        let withoutTypos = listings.dropLast().reduce(into: Set<String>()) { $0.formUnion(Self.bigrams(of: $1)) }
        let narrowed = coarse.narrowing(toBigramsIn: withoutTypos)
        #expect(narrowed.ftsMatchExpression == #""없는" AND "는말""#)
        #expect(try listings.dropLast().map { try Self.selects(narrowed, $0) } == [false, true, false, false, false])
        #expect(narrowed.typoBigrams.isEmpty, "a narrowed word has nothing left to look up")

        // Once a listing holds 는맘, a typo in 말 may be anywhere 없는 is.
        let withTypo = withoutTypos.union(Self.bigrams(of: listings.removeLast()))
        #expect(try Self.selects(coarse.narrowing(toBigramsIn: withTypo), "없는맘 카페"))
        #expect(coarse.narrowing(toBigramsIn: withTypo).ftsMatchExpression == #""없는""#)

        let word = try #require(SearchTokenizer.query("공업수학"))
        #expect(try !Self.selects(word.narrowing(toBigramsIn: withoutTypos), "수학 공부"), "공 and 수학 apart are no typo of 공업수학")
        #expect(try Self.selects(word, "수학 공부"))
        #expect(word.narrowing(toBigramsIn: []).ftsMatchExpression == #""공업" AND "업수" AND "수학""#)
    }

    @Test("random words with a typo or none: the narrowed condition selects every listing they match, keeps only alternatives of the coarse one or the exact word's, and selects fewer that they do not")
    func againstBruteForce() throws {
        var random = SeededRandom(seed: 0x7E57_0001)
        let words = Brute.words + ["공업수학", "없는말", "영어회화", "일본어회화", "중국어", "바이올린"]
        let listings = (0..<250).map { _ in
            (0..<Int.random(in: 2...6, using: &random)).map { _ in
                let word = Array(words.randomElement(using: &random)!.unicodeScalars)
                // Few listings misspell a word: the index holds the bigrams of few typos.
                return String(String.UnicodeScalarView(Int.random(in: 0..<40, using: &random) > 0 ? word : Self.misspelled(word, using: &random)))
            }.joined(separator: Bool.random(using: &random) ? " " : ", ")
        }
        let present = listings.reduce(into: Set<String>()) { $0.formUnion(Self.bigrams(of: $1)) }
        let tokens = listings.map(SearchTokenizer.indexTokens)
        // A comma ends a run; spaces join its words.
        let runs = listings.map { $0.split(separator: ",").map { Array($0.unicodeScalars.filter { $0 != " " }) } }
        var matches = 0, coarseOthers = 0, narrowedOthers = 0
        for _ in 0..<80 {
            let word = Array(words.filter { $0.count >= 3 }.randomElement(using: &random)!.unicodeScalars)
            let text = String(String.UnicodeScalarView(Bool.random(using: &random) ? word : Self.misspelled(word, using: &random)))
            let coarse = try #require(SearchTokenizer.query(text))
            // A superset of the listings' bigrams, as the table of bigrams no listing holds any more is.
            let narrowed = coarse.narrowing(toBigramsIn: present.union(coarse.typoBigrams.filter { _ in Int.random(in: 0..<50, using: &random) == 0 }))
            #expect(narrowed.conditions.count == 1 && narrowed.conditions[0].alternatives.allSatisfy { alternative in
                coarse.conditions[0].alternatives.contains(alternative) || alternative.allSatisfy { $0.token.count == 2 && text.contains($0.token) }
            }, "\(text)")
            let (coarseExpression, narrowedExpression) = (try #require(Support.parseMatchExpression(coarse.ftsMatchExpression)),
                                                          try #require(Support.parseMatchExpression(narrowed.ftsMatchExpression)))
            for (index, listing) in listings.enumerated() {
                let matched = runs[index].contains { Brute.bruteForceOccurs(Array(text.unicodeScalars), in: $0) }
                #expect(narrowed.matches(listing) == matched, "\(text) in \(listing)")
                let (byCoarse, byNarrowed) = (coarseExpression.isSatisfied(by: tokens[index]), narrowedExpression.isSatisfied(by: tokens[index]))
                if matched {
                    matches += 1
                    #expect(byNarrowed, "the narrowed condition misses \(listing.debugDescription) for \(text)")
                } else {
                    coarseOthers += byCoarse ? 1 : 0
                    narrowedOthers += byNarrowed ? 1 : 0
                }
            }
        }
        #expect(matches > 300)
        #expect(narrowedOthers < coarseOthers, "narrowed \(narrowedOthers), coarse \(coarseOthers) listings selected that do not match")
    }
}
