/// Finds banned words in Korean and English text, also when they are disguised, and masks them.
///
/// The filter reads a text character by character (grapheme clusters) into two letter streams, one per script:
/// - **Hangul**: syllables are taken apart into jamo (U+AC00 arithmetic) and lone jamo (`ㅅㅣ발`) read the same
///   way, so a word split into jamo is still found. Tense consonants read as plain ones (씨발 = 시발, 빨 = 발),
///   ㅔ/ㅖ as ㅐ/ㅒ, double finals as their two consonants, and the silent ㅇ is dropped, so a word respelled by
///   sound is found too (십알 and 시이발 read as 시발). Digits, Latin letters, signs and emoji between syllables are
///   ignored (`시1발`, `시.발`).
/// - **Latin**: case, width and diacritics are folded (`ＦÜCK`); look-alike digits, signs and Cyrillic letters read
///   as the letters they imitate (`sh1t`, `$hit`, `fuсk` with a Cyrillic `с`); `l` and `i` are one letter. Digits
///   read as letters only inside an English word that holds a Latin letter and never beside Hangul, so times, prices
///   and phone numbers (`오후 4시 55분`, `010-4555-6655`) read as no letters.
///
/// In both streams a letter may be repeated (`fuuuck`, `시이이발`), and up to ``maximumGap`` other characters
/// (spaces, dots, digits) may stand between two letters of a word (`f.u.c.k`, `시 발`).
///
/// Where a match is accepted, to spare innocent words:
/// - An English entry must start a word (`class` does not hold `ass`, `Scunthorpe` holds no banned word) but may
///   go on (`fucking`); with the `word` flag it must also end one.
/// - A Korean entry matches inside words (Korean glues endings on: 시발놈아), but only from the start of a
///   syllable and with the syllables' letters in their places, so 시바를 (시바 + 를) does not read as 시발 and
///   매미 does not hold 애미.
/// - A match that spans white space must be a whole word on both sides: `시 발` and `f u c k` are found,
///   `다시 발표` and `3시 발표회` are not.
/// - An allowed word (`!시발점` in the list) shields the matches that lie inside it.
///
/// Known limits: a Korean word is found inside longer words, so each innocent compound needs an allowed-word line;
/// English words spelled by sound (`phuck`) or with letters left out (`fck`) need their own entries; two banned
/// words written across a line break or more than ``maximumGap`` characters apart are not found.
public struct BannedWordFilter: Sendable {
    /// One line of the list: a banned word and how to match it.
    public struct Entry: Sendable, Hashable {
        /// The word as written in the list.
        public let word: String
        /// Also find the word written as bare initial consonants, syllable by syllable (`ㅅㅂ`, `ㅅ발` for 시발).
        public let initials: Bool
        /// Find the word only as a whole word, never at the start of a longer one (`ass`, not `assistant`).
        public let wholeWord: Bool
    }

    /// The most characters that may stand between two letters of a found word.
    public static let maximumGap = 3

    /// A filter that finds nothing.
    public static let empty = BannedWordFilter(entries: [], allowedWords: [], patterns: [:], allowances: [])

    /// The banned words, in list order.
    public let entries: [Entry]
    /// The allowed words, in list order.
    public let allowedWords: [String]
    /// The spellings of the entries, by script and first letter.
    private let patterns: [FilterScript: [Unicode.Scalar: [FilterPattern]]]
    /// The spellings of the allowed words.
    private let allowances: [FilterPattern]

    private init(entries: [Entry], allowedWords: [String], patterns: [FilterScript: [Unicode.Scalar: [FilterPattern]]],
                 allowances: [FilterPattern]) {
        self.entries = entries
        self.allowedWords = allowedWords
        self.patterns = patterns
        self.allowances = allowances
    }

    /// Reads a list: one entry per line, `#` starts a comment. An entry is a word (spaces inside words are not
    /// needed: the filter ignores spacing) followed by flags: `initials` (Korean, two or more syllables) and `word`.
    /// A line `!word` is an allowed word. Throws ``BannedWordListError`` naming the first bad line.
    public init(parsing list: String) throws(BannedWordListError) {
        var entries: [Entry] = []
        var allowedWords: [String] = []
        var patterns: [FilterScript: [Unicode.Scalar: [FilterPattern]]] = [:]
        var allowances: [FilterPattern] = []
        let lines = list.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() {
            let content = line.prefix { $0 != "#" }.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let word = content.first else { continue }
            do throws(FilterPattern.PatternError) {
                if word.hasPrefix("!") {
                    guard content.count == 1 else { throw FilterPattern.PatternError(reason: "an allowed word takes no flags") }
                    let allowed = String(word.dropFirst())
                    allowances += try FilterPattern.spellings(of: allowed, initials: false, wholeWord: false, source: allowedWords.count)
                    allowedWords.append(allowed)
                    continue
                }
                var entry = Entry(word: word, initials: false, wholeWord: false)
                for flag in content.dropFirst() {
                    switch flag {
                    case "initials": entry = Entry(word: word, initials: true, wholeWord: entry.wholeWord)
                    case "word": entry = Entry(word: word, initials: entry.initials, wholeWord: true)
                    default: throw FilterPattern.PatternError(reason: "has an unknown flag '\(flag)' (known: initials, word)")
                    }
                }
                for pattern in try FilterPattern.spellings(of: word, initials: entry.initials, wholeWord: entry.wholeWord,
                                                           source: entries.count) {
                    guard let first = pattern.letters.first?.value else { continue }
                    patterns[pattern.script, default: [:]][first, default: []].append(pattern)
                }
                entries.append(entry)
            } catch {
                throw BannedWordListError(line: index + 1, reason: "'\(word)' \(error.reason)")
            }
        }
        self.init(entries: entries, allowedWords: allowedWords, patterns: patterns, allowances: allowances)
    }

    /// Every banned word found in `text`, in the order of the text (Hangul entries first).
    public func matches(in text: String) -> [BannedWordMatch] {
        guard !patterns.isEmpty else { return [] }
        let read = FilterText(text)
        let shielded = allowedRanges(in: read)
        var found: [BannedWordMatch] = []
        for script in [FilterScript.hangul, .latin] {
            guard let byFirstLetter = patterns[script] else { continue }
            let stream = read.letters(script)
            for start in stream.indices {
                for pattern in byFirstLetter[stream[start].letter.value] ?? [] {
                    guard let (spaced, end) = pattern.match(in: stream, at: start, of: read, maximumGap: Self.maximumGap) else {
                        continue
                    }
                    let first = stream[start].offset
                    let last = stream[end].offset
                    let needsWordStart = script == .latin || spaced || pattern.wholeWord
                    let needsWordEnd = spaced || pattern.wholeWord
                    guard !(needsWordStart && read.isWordCharacter(at: first - 1, script)),
                          !(needsWordEnd && read.isWordCharacter(at: last + 1, script)),
                          !shielded.contains(where: { $0.contains(first) && $0.contains(last) })
                    else { continue }
                    let offsets = Array(Set(stream[start...end].map(\.offset))).sorted()
                    let match = BannedWordMatch(word: entries[pattern.source].word, characterOffsets: offsets)
                    if !found.contains(match) {
                        found.append(match)
                    }
                }
            }
        }
        return found
    }

    /// Whether `text` holds no banned word.
    public func allows(_ text: String) -> Bool {
        matches(in: text).isEmpty
    }

    /// `text` with every character of every banned word found replaced by `*`; everything else (spaces and signs
    /// inside a disguised word, emoji, other scripts) is kept. The result has as many characters as `text`.
    public func masked(_ text: String) -> String {
        let offsets = Set(matches(in: text).flatMap(\.characterOffsets))
        guard !offsets.isEmpty else { return text }
        return String(text.enumerated().map { offsets.contains($0.offset) ? "*" : $0.element })
    }

    /// Records a validation error for `field` when `value` holds a banned word (the word is not repeated back).
    public func check(_ value: String?, _ field: String, into validator: inout FieldValidator) {
        guard let value, !allows(value) else { return }
        validator.fail(field, "contains a word that is not allowed")
    }

    /// The character ranges of the allowed words in `text`, written without gaps.
    private func allowedRanges(in text: FilterText) -> [ClosedRange<Int>] {
        allowances.flatMap { pattern in
            let stream = text.letters(pattern.script)
            return stream.indices.compactMap { start in
                pattern.match(in: stream, at: start, of: text, maximumGap: 0).map { stream[start].offset...stream[$0.end].offset }
            }
        }
    }
}

/// A banned word found in a text.
public struct BannedWordMatch: Sendable, Hashable {
    /// The list entry that was found.
    public let word: String
    /// The offsets (in characters) of the text's characters read as the word's letters, ascending.
    public let characterOffsets: [Int]
}

/// A line of a banned-words list that cannot be used.
public struct BannedWordListError: Error, Hashable, CustomStringConvertible {
    /// The line number, from 1.
    public let line: Int
    /// What is wrong with it.
    public let reason: String

    /// `line N: reason`.
    public var description: String {
        "line \(line): \(reason)"
    }
}
