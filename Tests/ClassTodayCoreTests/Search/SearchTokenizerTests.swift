import Testing
@testable import ClassTodayCore

@Suite("SearchTokenizer")
struct SearchTokenizerTests {
    // MARK: - Normalization

    @Test("normalize applies NFKC, lower case, Latin diacritic folding and collapses white space")
    func normalization() {
        #expect(SearchTokenizer.normalize("  CAFÉ \t Crème\n\nBrûlée  ") == "cafe creme brulee")
        #expect(SearchTokenizer.normalize("Ｐｙｔｈｏｎ①") == "python1")
        #expect(SearchTokenizer.normalize("Straße İstanbul ŁÓDŹ") == "strasse istanbul lodz")
        #expect(SearchTokenizer.normalize("요가\u{3000}수업") == "요가 수업")
        #expect(SearchTokenizer.normalize("co\u{AD}op\u{200B}") == "coop")
    }

    @Test("normalize keeps Hangul syllables precomposed and composes loose jamo")
    func hangulStaysComposed() {
        let normalized = SearchTokenizer.normalize("수학 과외")
        #expect(normalized.unicodeScalars.map(\.value) == [0xC218, 0xD559, 0x20, 0xACFC, 0xC678])
        // Decomposed input (NFD) and compatibility jamo come back as syllables.
        #expect(SearchTokenizer.normalize("\u{1100}\u{1161}\u{11A8}").unicodeScalars.map(\.value) == [0xAC01])
        #expect(SearchTokenizer.normalize("\u{3147}\u{314F}").unicodeScalars.map(\.value) == [0xC544])
    }

    @Test("normalize is idempotent", arguments: ["CAFÉ İstanbul", "요가 수업 for Beginners", "ᄀ ᅡ ㅋㅋ", "Ǆ ﬁ ß", "ά Σ ς"])
    func normalizationIsIdempotent(text: String) {
        let once = SearchTokenizer.normalize(text)
        #expect(Array(SearchTokenizer.normalize(once).unicodeScalars) == Array(once.unicodeScalars))
    }

    // MARK: - Index tokens

    /// The escaped token of two initial consonants (`ㅇㄱ` for `요가`).
    private static func initials(_ consonants: String) -> String {
        SearchTokenizer.TokenEncoder.runToken(Array(SearchTokenizer.normalize(consonants).unicodeScalars)[...])
    }

    @Test("a Korean/English document gives Hangul unigrams, bigrams and initials bigrams across spaces, plus words")
    func indexTokensExample() {
        let (yoga, gasu, sueop) = (Self.initials("ㅇㄱ"), Self.initials("ㄱㅅ"), Self.initials("ㅅㅇ"))
        #expect(yoga == "qx03d703cw", "escaped like any token outside a-z, 0-9 and syllables")
        #expect(SearchTokenizer.indexTokens(for: "요가 수업 for Beginners")
            == ["요", "요가", yoga, "가", "가수", gasu, "수", "수업", sueop, "업", "for", "beginners"])
        #expect(SearchTokenizer.indexText(for: "요가 수업 for Beginners") == "요 요가 \(yoga) 가 가수 \(gasu) 수 수업 \(sueop) 업 for beginners")
    }

    @Test("line breaks, punctuation and Latin words keep Hangul runs apart")
    func runsAreNotJoinedAcrossBreaks() {
        let (yoga, sueop) = (Self.initials("ㅇㄱ"), Self.initials("ㅅㅇ"))
        #expect(SearchTokenizer.indexTokens(for: "요가\n수업") == ["요", "요가", yoga, "가", "수", "수업", sueop, "업"])
        #expect(SearchTokenizer.indexTokens(for: "요가, 수업") == ["요", "요가", yoga, "가", "수", "수업", sueop, "업"])
        #expect(SearchTokenizer.indexTokens(for: "파이썬python기초") == [
            "파", "파이", Self.initials("ㅍㅇ"), "이", "이썬", Self.initials("ㅇㅆ"), "썬", "python", "기", "기초", Self.initials("ㄱㅊ"), "초",
        ])
    }

    @Test("index tokens contain only a-z, 0-9 or Hangul syllables")
    func indexTokensAreSafe() {
        let text = "日本語 テスト · Привет мир! naïve 🎸 guitar-lesson ㅋㅋ x_y 3.5 \"q\" (x) a*b ά"
        let tokens = SearchTokenizer.indexTokens(for: text)
        #expect(!tokens.isEmpty)
        for token in tokens {
            #expect(SearchTokenTestSupport.isSafeToken(token), "unsafe token \(token)")
        }
        #expect(tokens.contains("naive"))
        #expect(tokens.contains("guitar") && tokens.contains("lesson"))
    }

    @Test("very long words are cut, and prefix queries still find them")
    func longWords() throws {
        let long = String(repeating: "abcdefghij", count: 10)
        let tokens = SearchTokenizer.indexTokens(for: long)
        #expect(tokens == [String(long.prefix(SearchTokenizer.maximumTokenLength))])
        let query = try #require(SearchTokenizer.query(long))
        #expect(query.matches(long))
        #expect(query.ftsMatchExpression == "\"\(tokens[0])\"*")
    }

    // MARK: - Queries

    @Test("empty, blank and punctuation-only queries are nil", arguments: ["", "   ", "\n\t", "!!!", "\"*():^-", "🎸😀", "・·…", "\u{200B}"])
    func emptyQueries(text: String) {
        #expect(SearchTokenizer.query(text) == nil)
    }

    @Test("a 1-syllable Korean query needs its unigram")
    func oneSyllable() throws {
        let query = try #require(SearchTokenizer.query("영"))
        #expect(query.terms == [.substring("영")])
        #expect(query.ftsMatchExpression == "\"영\"")
        #expect(query.tsQuery == "'영'")
        #expect(query.matches("영어 회화"))
        #expect(query.matches("초등 영 어"))
        #expect(!query.matches("수학 과외"))
    }

    @Test("a 2-syllable Korean query needs its bigram")
    func twoSyllables() throws {
        let query = try #require(SearchTokenizer.query("수학"))
        #expect(query.ftsMatchExpression == "\"수학\"")
        #expect(query.matches("중학생 수학 과외"))
        #expect(query.matches("고등수학"))
        #expect(query.matches("수 학"))
        #expect(!query.matches("학수"))
        #expect(!query.matches("수\n학"))
    }

    @Test("a 3-syllable Korean query needs the bigrams around any one syllable (a typo may hide in it) and matches as a substring")
    func threeSyllables() throws {
        let query = try #require(SearchTokenizer.query("피아노"))
        #expect(query.ftsMatchExpression == "((\"아노\") OR (\"피\" AND \"노\") OR (\"피아\"))")
        #expect(query.tsQuery == "(('아노') | ('피' & '노') | ('피아'))")
        #expect(query.matches("어린이피아노교실"))
        #expect(query.matches("피 아노 레슨"))
        #expect(!query.matches("아노 피아"))
    }

    @Test("a 4-syllable query mistyped in its second or third syllable also needs the unigram of the end the bigrams leave out")
    func fourSyllables() throws {
        let query = try #require(SearchTokenizer.query("공업수학"))
        #expect(query.tsQuery == "(('업수' & '수학') | ('수학' & '공') | ('공업' & '학') | ('공업' & '업수'))")
        #expect(query.matches("대학 공업수학 스터디"))
        #expect(query.matches("공엽수학"), "a typo in the second syllable")
        #expect(query.matches("공업수악"), "a typo in the last syllable")
        #expect(!query.matches("응용수학"), "two syllables differ")
    }

    @Test("spacing differences match in both directions")
    func spacingBothWays() throws {
        let joined = try #require(SearchTokenizer.query("요가수업"))
        let spaced = try #require(SearchTokenizer.query("요가 수업"))
        #expect(joined.matches("요가 수업"))
        #expect(joined.matches("요가   수업 안내"))
        #expect(spaced.matches("요가수업"))
        #expect(spaced.matches("요가 수업"))
        #expect(spaced.terms == [.substring("요가"), .substring("수업")])
        #expect(!joined.matches("수업 요가"))
        #expect(spaced.matches("수업 요가"))
        #expect(!joined.matches("요가, 수업"))
    }

    @Test("mixed Korean and English queries require every term")
    func mixedQuery() throws {
        let query = try #require(SearchTokenizer.query("파이썬 python 기초"))
        #expect(query.terms == [.substring("파이썬"), .prefix("python"), .substring("기초")])
        #expect(query.ftsMatchExpression == "((\"이썬\") OR (\"파\" AND \"썬\") OR (\"파이\")) AND \"python\"* AND \"기초\"")
        #expect(query.tsQuery == "(('이썬') | ('파' & '썬') | ('파이')) & 'python':* & '기초'")
        #expect(query.matches("Python 기초 - 파이썬 입문"))
        #expect(query.matches("파이썬(Python3) 기초반"))
        #expect(!query.matches("파이썬 기초"))
        #expect(!query.matches("Python 파이썬 고급"))
    }

    @Test("Latin words are case- and accent-insensitive and match by prefix")
    func latinWords() throws {
        let cafe = try #require(SearchTokenizer.query("CAFÉ"))
        #expect(cafe.matches("cafe latte"))
        #expect(cafe.matches("Café Music"))
        #expect(cafe.ftsMatchExpression == "\"cafe\"*")
        let gui = try #require(SearchTokenizer.query("gui"))
        #expect(gui.matches("Guitar for beginners"))
        #expect(!gui.matches("Bass"))
        #expect(!gui.matches("Linguistics"))
        #expect(try #require(SearchTokenizer.query("strasse")).matches("Straße"))
    }

    @Test("queries full of FTS5 syntax give only quoted tokens joined by AND", arguments: [
        "\"요가\"", "gui*", "(a OR b)", "NOT x", "a AND b", "NEAR(a b, 3)", "col:value", "^start", "-minus",
        "x\" OR \"y", "'quote' \\ back", "{a b}: c", "*수학*", "\"\"요가", "+요가 -수업", "a:*", "요가 | 수업 & !x",
    ])
    func ftsSyntaxIsNeutralized(text: String) throws {
        let query = try #require(SearchTokenizer.query(text))
        let expression = try #require(SearchTokenTestSupport.parseMatchExpression(query.ftsMatchExpression))
        let requirements = expression.tokens
        #expect(requirements == query.tokenRequirements)
        for requirement in requirements {
            #expect(SearchTokenTestSupport.isSafeToken(requirement.token))
        }
        #expect(query.tsQuery.split(separator: " & ").count == requirements.count)
    }

    @Test("FTS5 operators typed by the user become ordinary lower-case prefix terms")
    func operatorsAreWords() throws {
        let query = try #require(SearchTokenizer.query("NEAR AND OR NOT"))
        #expect(query.ftsMatchExpression == "\"near\"* AND \"and\"* AND \"or\"* AND \"not\"*")
        #expect(query.tsQuery == "'near':* & 'and':* & 'or':* & 'not':*")
    }

    @Test("repeated terms are asked for once")
    func duplicates() throws {
        let query = try #require(SearchTokenizer.query("요가 요가 YOGA yoga"))
        #expect(query.terms == [.substring("요가"), .prefix("yoga")])
        #expect(query.ftsMatchExpression == "\"요가\" AND \"yoga\"*")
    }

    @Test("other scripts are escaped consistently and still match")
    func otherScripts() throws {
        let russian = try #require(SearchTokenizer.query("При"))
        #expect(russian.matches("Привет мир"))
        let tokens = SearchTokenizer.indexTokens(for: "Привет мир")
        #expect(SearchTokenTestSupport.satisfies(russian.tokenRequirements, tokens: tokens))
        let japanese = try #require(SearchTokenizer.query("テスト"))
        #expect(japanese.matches("日本語テスト"))
        #expect(SearchTokenTestSupport.satisfies(japanese.tokenRequirements, tokens: SearchTokenizer.indexTokens(for: "日本語テスト")))
    }

    @Test("the number of index requirements is capped")
    func requirementCap() throws {
        let text = (0..<40).map { "word\($0)" }.joined(separator: " ")
        let query = try #require(SearchTokenizer.query(text))
        #expect(query.terms.count == 40)
        #expect(query.tokenRequirements.count == SearchTokenizer.maximumMatchTerms)
        #expect(query.matches(text))
        #expect(!query.matches("word1 word2"))
    }
}
