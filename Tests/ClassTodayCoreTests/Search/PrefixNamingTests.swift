import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// A word's prefix named as the few index words it starts (``SearchQuery/narrowing(toBigramsIn:words:)``): the
/// condition must select exactly the listings the prefix selects, when the words are the index's.
@Suite("Word prefixes named as the index's words")
struct PrefixNamingTests {
    private typealias Support = SearchTokenTestSupport

    /// The listed words of `listings`' index tokens, as the vocabulary holds them.
    static func vocabulary(of listings: [String]) -> Set<String> {
        listings.reduce(into: Set<String>()) { $0.formUnion(SearchTokenizer.listedWords(inIndexText: SearchTokenizer.indexText(for: $1))) }
    }

    @Test("a prefix names the 1 to 8 words it starts, with a Hangul term beside it; more, none, `q` and escaped words keep the prefix")
    func examples() throws {
        let words = Set(["jlpt", "jlptn2", "java", "python3", "qxz"] + (1...9).map { "e\($0)" })
        let jl = try #require(SearchTokenizer.query("JL 대비"))
        #expect(jl.expandablePrefixes == ["jl"])
        #expect(jl.narrowing(toBigramsIn: [], words: words).tsQuery == "(('jlpt') | ('jlptn2')) & '대비'")
        #expect(jl.narrowing(toBigramsIn: [], words: words).ftsMatchExpression == #"(("jlpt") OR ("jlptn2")) AND "대비""#)
        #expect(try #require(SearchTokenizer.query("python")).narrowing(toBigramsIn: [], words: words).tsQuery == "'python3'")
        #expect(try #require(SearchTokenizer.query("jlpt")).narrowing(toBigramsIn: [], words: words).expandablePrefixes.isEmpty,
                "nothing left to look up once narrowed")
        for kept in ["e", "zz", "q", "qx", "qxz"] {
            #expect(try #require(SearchTokenizer.query(kept)).narrowing(toBigramsIn: [], words: words).tsQuery == "'\(kept)':*", "\(kept)")
        }
        #expect(try #require(SearchTokenizer.query("q 수학")).expandablePrefixes.isEmpty)
        #expect(try #require(SearchTokenizer.query("日本")).expandablePrefixes.isEmpty)
        #expect(SearchTokenizer.listedWords(inIndexText: SearchTokenizer.indexText(for: "JLPT N1 대비, 日本語 café")) == ["jlpt", "n1", "cafe"])
    }

    @Test("random prefixes of random listings' words: named as the vocabulary's words, they select exactly the listings the prefix selects, and the listings the query matches, but for `q` and words starting `qx`, which it confirms")
    func againstPrefix() throws {
        var random = SeededRandom(seed: 0x9F1C_0001)
        let stems = ["jlpt", "java", "javascript", "python", "py", "guitar", "english", "eng", "e", "n1", "n2", "2026", "abc", "수학", "qxz"]
        let listings = (0..<300).map { _ in
            (0..<Int.random(in: 1...4, using: &random)).map { _ in
                stems.randomElement(using: &random)! + (Bool.random(using: &random) ? "" : String(Int.random(in: 0..<4, using: &random)))
            }.joined(separator: " ")
        }
        let words = Self.vocabulary(of: listings)
        let tokens = listings.map(SearchTokenizer.indexTokens)
        var named = 0
        for stem in stems {
            for length in 1...stem.count {
                let text = String(stem.prefix(length))
                let coarse = try #require(SearchTokenizer.query(text))
                let narrowed = coarse.narrowing(toBigramsIn: [], words: words)
                // `q`, `qx` and `qxz` also select the escaped initials of 수학, which the query confirms.
                #expect(narrowed.needsVerification == ["q", "qx", "qxz"].contains(text), "\(text)")
                named += narrowed.tokenRequirements.contains { !$0.isPrefix } && coarse.tokenRequirements.allSatisfy(\.isPrefix) ? 1 : 0
                let (coarseExpression, narrowedExpression) = (try #require(Support.parseMatchExpression(coarse.ftsMatchExpression)),
                                                              try #require(Support.parseMatchExpression(narrowed.ftsMatchExpression)))
                for (index, listing) in listings.enumerated() {
                    let selected = coarseExpression.isSatisfied(by: tokens[index])
                    #expect(narrowedExpression.isSatisfied(by: tokens[index]) == selected, "\(text) in \(listing)")
                    #expect(narrowed.needsVerification || narrowed.matches(listing) == selected, "\(text) in \(listing)")
                }
            }
        }
        #expect(named > 10, "prefixes named as words: \(named)")
    }
}
