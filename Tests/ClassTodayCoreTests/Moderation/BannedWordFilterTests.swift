import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

@Suite("BannedWordFilter")
struct BannedWordFilterTests {
    static let filter = try! BannedWordFilter(parsing: """
        # a small list for the tests
        시발 initials
        병신 initials
        존나 initials
        개새끼
        애미
        fuck
        shit
        asshole
        ass word
        !시발점
        """)

    /// Whether the test filter finds a banned word.
    static func flags(_ text: String) -> Bool {
        !filter.allows(text)
    }

    @Test("plain words are found, in any script's case and width", arguments: ["시발", "씨발", "병신아", "개새끼야", "FUCK", "Fuck you", "ｆｕｃｋ", "shit!"])
    func plain(text: String) {
        #expect(Self.flags(text))
    }

    @Test("spacing, separators and digits between letters do not hide a word",
          arguments: ["시 발", "시  발", "시1발", "시.발", "시-발놈", "시🔥발", "존 나", "f u c k", "f.u.c.k", "f_u_c_k", "s-h-i-t"])
    func spacing(text: String) {
        #expect(Self.flags(text))
    }

    @Test("jamo splits, tense consonants and spellings by sound are found",
          arguments: ["ㅅㅣ발", "ㅅㅣㅂㅏㄹ", "씨빨", "십알", "십발", "시이이발", "\u{1109}\u{1175}\u{1107}\u{1161}\u{11AF}", "게새끼"])
    func jamo(text: String) {
        #expect(Self.flags(text))
    }

    @Test("initial-consonant spellings are found for entries marked `initials` only",
          arguments: ["ㅅㅂ", "ㅆㅂ", "ㅅ ㅂ", "ㅅ발", "ㅂㅅ", "ㅄ", "ㅈㄴ 웃겨", "ㅋㅋㅅㅂㅋㅋ"])
    func initials(text: String) {
        #expect(Self.flags(text))
    }

    @Test("look-alike digits and signs, repeated letters and Cyrillic letters are found",
          arguments: ["sh1t", "$hit", "5hit", "shiiiit", "fuuuuck", "FUUUCK", "a$$hole", "@sshole", "fu\u{0441}k", "fück"])
    func lookAlikes(text: String) {
        #expect(Self.flags(text))
    }

    @Test("innocent words that hold a banned word's letters are not flagged", arguments: [
        "다시 발표합니다", "오후 3시 발표회", "시바를 키워요", "시발점에서 출발", "매미 소리", "조나단 선생님",
        "갓바위", "class", "classic assistant", "Scunthorpe", "passage", "Dickens", "this hit",
        "기타 왕초보 레슨", "수학 과외 합니다", "ㅅ", "",
    ])
    func innocents(text: String) {
        #expect(!Self.flags(text))
    }

    @Test("English entries also match at the start of longer words (the trade-off that finds `fucking`)")
    func englishPrefixes() {
        #expect(Self.flags("fucking"))
        #expect(Self.flags("shitty"))
        #expect(Self.flags("his shitake"))
        #expect(!Self.flags("motherfucker")) // not at a word start: the shipped list has it as its own entry
    }

    @Test("a word written next to an allowed word is still found")
    func allowedWordShieldsOnlyItself() {
        #expect(!Self.flags("시발점"))
        #expect(Self.flags("시발 시발점"))
    }

    @Test("`ㅅㅂ` is found only as lone consonants, never across syllables (갓바)")
    func initialsNeedLoneConsonants() {
        #expect(!Self.flags("갓바"))
        #expect(!Self.flags("습비"))
    }

    @Test("whole-word entries are found only as whole words")
    func wholeWords() {
        #expect(Self.flags("kiss my ass"))
        #expect(Self.flags("ass!"))
        #expect(!Self.flags("assistant"))
        #expect(!Self.flags("bass"))
    }

    @Test("masking replaces each character of a found word with *, keeping everything else")
    func masking() {
        let filter = Self.filter
        #expect(filter.masked("야 시발 뭐해") == "야 ** 뭐해")
        #expect(filter.masked("시 발 진짜") == "* * 진짜")
        #expect(filter.masked("시1발놈아 😡") == "*1*놈아 😡")
        #expect(filter.masked("what the FUCK, man 👍🏽") == "what the ****, man 👍🏽")
        #expect(filter.masked("f.u.c.k off") == "*.*.*.* off")
        #expect(filter.masked("ㅋㅋ ㅅㅂ ㅋㅋ") == "ㅋㅋ ** ㅋㅋ")
        #expect(filter.masked("shiiit 시발점 👨‍👩‍👧 ok") == "****** 시발점 👨‍👩‍👧 ok")
        #expect(filter.masked("기타 수업 문의드려요") == "기타 수업 문의드려요")
    }

    @Test("masking keeps the length in characters and never adds code points", arguments: [
        "야 시발 뭐해", "시🔥발 👨‍👩‍👧 fuuuck", "\u{1109}\u{1175}\u{1107}\u{1161}\u{11AF} 하", "ｆｕｃｋ", "e\u{301}shit", "안녕하세요",
    ])
    func maskingKeepsLength(text: String) {
        let masked = Self.filter.masked(text)
        #expect(masked.count == text.count)
        #expect(masked.unicodeScalars.count <= text.unicodeScalars.count)
        let kept = zip(masked, text).filter { $0.0 != "*" }
        #expect(kept.allSatisfy { $0.0 == $0.1 })
    }

    @Test("matches name the entry and the characters read as it")
    func matchDetails() {
        let matches = Self.filter.matches(in: "아 십알")
        #expect(matches == [BannedWordMatch(word: "시발", characterOffsets: [2, 3])])
    }

    @Test("bad lines are refused with their line number")
    func parsingErrors() {
        #expect(throws: BannedWordListError(line: 2, reason: "'시발f' mixes Hangul and Latin letters")) {
            try BannedWordFilter(parsing: "# ok\n시발f\n")
        }
        #expect(throws: BannedWordListError(line: 1, reason: "'fuck' can have initials only when written in two or more Hangul syllables")) {
            try BannedWordFilter(parsing: "fuck initials")
        }
        #expect(throws: BannedWordListError(line: 1, reason: "'시발' has an unknown flag 'loud' (known: initials, word)")) {
            try BannedWordFilter(parsing: "시발 loud")
        }
        #expect(throws: BannedWordListError(line: 3, reason: "'...' has no letters")) {
            try BannedWordFilter(parsing: "\n\n...")
        }
    }

    @Test("an empty list finds nothing")
    func emptyList() throws {
        #expect(BannedWordFilter.empty.allows("시발 fuck"))
        #expect(try BannedWordFilter(parsing: "# nothing\n\n").masked("시발") == "시발")
    }

    @Test("the shipped list parses and finds its own words")
    func shippedList() throws {
        let filter = try ShippedBannedWords.filter()
        #expect(filter.entries.count >= 10)
        let unfound = filter.entries.map(\.word).filter(filter.allows)
        #expect(unfound == [])
        let flaggedAllowed = filter.allowedWords.filter { !filter.allows($0) }
        #expect(flaggedAllowed == [])
        let innocent = filter.allows("기타 왕초보 레슨: 신림역 근처에서 토요일마다, 다시 발표하는 수업")
        #expect(innocent)
    }
}
