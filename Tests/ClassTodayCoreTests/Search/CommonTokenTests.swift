import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// A confirmed keyword's index condition with its common tokens left out (``SearchQuery/leavingOutCommonTokens(counts:)``):
/// it must still select every listing its condition selected, name no token it did not, and keep its candidates confirmed.
@Suite("Common tokens left out of a confirmed keyword's index condition")
struct CommonTokenTests {
    private typealias Support = SearchTokenTestSupport
    private typealias Brute = KoreanInitialsAndTyposTests

    @Test("공업수학 leaves out 수학, nine times as common as 공업 and 업수, and is still confirmed; an exact keyword counts nothing")
    func examples() throws {
        let word = try #require(SearchTokenizer.query("공업수학")).narrowing(toBigramsIn: [])
        #expect(word.tokensToCount == ["공업", "업수", "수학"])
        let thinned = word.leavingOutCommonTokens(counts: ["공업": 9_002, "업수": 9_010, "수학": 77_254])
        #expect(thinned.ftsMatchExpression == #""공업" AND "업수""#)
        #expect(thinned.tsQuery == "'공업' & '업수'")
        #expect(thinned.needsVerification && thinned.tokensToCount.isEmpty)
        #expect(thinned.matches("공업수학 과외") && !thinned.matches("공업 수리, 업수 확인"))

        // At most four times the rarest, or without a count, a token stays.
        #expect(word.leavingOutCommonTokens(counts: ["공업": 9_002, "업수": 9_010, "수학": 36_008]).ftsMatchExpression
            == #""공업" AND "업수" AND "수학""#)
        #expect(word.leavingOutCommonTokens(counts: ["공업": 9_002]).ftsMatchExpression == #""공업" AND "업수" AND "수학""#)

        // The index condition of a two-syllable word is exact: nothing to leave out.
        #expect(try #require(SearchTokenizer.query("수학")).tokensToCount.isEmpty)
    }

    @Test("a keyword's candidates are estimated from its counts: a word's rarest token, a term's most held alternative, the rarest term; none without counts")
    func estimatedCandidates() throws {
        let counts = ["공업": 9_002, "업수": 9_010, "수학": 77_254, "jlpt": 6_073, "요가": 5_000]
        let word = try #require(SearchTokenizer.query("공업수학")).narrowing(toBigramsIn: [])
        #expect(word.estimatedCandidates(counts: counts) == 9_002)
        #expect(word.leavingOutCommonTokens(counts: counts).estimatedCandidates(counts: counts) == 9_002)
        // A prefix counts as its own token; the rarest term bounds the keyword; a term without counts is passed over.
        #expect(try #require(SearchTokenizer.query("jlpt")).estimatedCandidates(counts: counts) == 6_073)
        #expect(try #require(SearchTokenizer.query("요가 jlpt")).estimatedCandidates(counts: counts) == 5_000)
        #expect(try #require(SearchTokenizer.query("요가 toeic")).estimatedCandidates(counts: counts) == 5_000)
        #expect(try #require(SearchTokenizer.query("toeic")).estimatedCandidates(counts: counts) == nil)
        // A typo-tolerant word's alternatives: the most held one, each taken as its rarest token.
        let whole = try #require(SearchTokenizer.query("공업수학"))
        let typo = whole.narrowing(toBigramsIn: Set(whole.typoBigrams))
        let alternatives = typo.conditions[0].alternatives
        #expect(alternatives.count > 1)
        let held = Set(alternatives[1].map(\.token))
        let byAlternative = Dictionary(uniqueKeysWithValues: Set(alternatives.flatMap { $0.map(\.token) }).map { ($0, held.contains($0) ? 50_000 : 100) })
        #expect(typo.estimatedCandidates(counts: byAlternative) == 50_000)
    }

    @Test("an alternative naming every token of another gives way to it")
    func absorbedAlternatives() throws {
        let word = try #require(SearchTokenizer.query("바이올린"))
        let alternatives = word.conditions[0].alternatives
        #expect(alternatives.count > 1, "a typo-tolerant word has alternatives")
        let tokens = Set(alternatives.flatMap { $0.map(\.token) })
        // Every token but one as common as the rarest: the alternatives holding that one keep it, and every alternative
        // naming all of another's tokens is gone.
        let common = try #require(tokens.first { $0.count == 1 })
        let counts = Dictionary(uniqueKeysWithValues: tokens.map { ($0, $0 == common ? 100_000 : 1_000) })
        let thinned = word.leavingOutCommonTokens(counts: counts).conditions[0].alternatives
        for (index, alternative) in thinned.enumerated() {
            #expect(!thinned.enumerated().contains { $0.offset != index && Set($0.element).isSubset(of: alternative) }, "\(thinned)")
            #expect(alternative.count == 1 || !alternative.contains { $0.token == common }, "\(alternative)")
        }
    }

    @Test("random words, counts and listings: the condition left out selects every listing the whole one did, names none of its own, and matches the same listings")
    func againstWholeCondition() throws {
        var random = SeededRandom(seed: 0xC0_11_0001)
        let words = Brute.words + ["공업수학", "없는말", "영어회화", "일본어회화", "중국어", "바이올린", "ㅇㅇㅎㅎ", "수ㅎ"]
        let listings = (0..<200).map { _ in
            (0..<Int.random(in: 2...6, using: &random)).map { _ in words.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? " " : ", ")
        }
        let tokens = listings.map(SearchTokenizer.indexTokens)
        var thinnedAny = 0
        for _ in 0..<120 {
            let word = try #require(SearchTokenizer.query(words.randomElement(using: &random)!))
            let query = word.narrowing(toBigramsIn: Set(listings.flatMap { TypoNarrowingTests.bigrams(of: $0) }))
            let counted = query.tokensToCount
            if !query.needsVerification { #expect(counted.isEmpty, "\(query.canonicalText) is exact") }
            // Counts as the listings hold them, or at random.
            let counts = Dictionary(uniqueKeysWithValues: counted.map { token in
                (token, Bool.random(using: &random) ? tokens.count { $0.contains(token) } : Int.random(in: 1...1_000, using: &random))
            })
            let thinned = query.leavingOutCommonTokens(counts: counts)
            #expect(thinned.needsVerification && thinned.tokensToCount.isEmpty)
            #expect(Set(thinned.tokenRequirements).isSubset(of: query.tokenRequirements))
            thinnedAny += thinned.tokenRequirements.count < query.tokenRequirements.count ? 1 : 0
            let (whole, left) = (try #require(Support.parseMatchExpression(query.ftsMatchExpression)),
                                 try #require(Support.parseMatchExpression(thinned.ftsMatchExpression)))
            for (index, listing) in listings.enumerated() {
                if whole.isSatisfied(by: tokens[index]) {
                    #expect(left.isSatisfied(by: tokens[index]), "\(listing) for \(query.canonicalText)")
                }
                #expect(thinned.matches(listing) == query.matches(listing))
            }
        }
        #expect(thinnedAny > 10, "some conditions should lose tokens")
    }
}
