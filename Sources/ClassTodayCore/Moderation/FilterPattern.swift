import Foundation

/// One spelling of a list entry (or of an allowed word) as a letter sequence to look for in a text's stream.
struct FilterPattern: Sendable {
    /// The letters, in order.
    let letters: [FilterLetter]
    /// The script of the letters.
    let script: FilterScript
    /// The index of the entry (or allowed word) the pattern spells.
    let source: Int
    /// Whether a match must be a whole word.
    let wholeWord: Bool

    /// The most syllables an entry with the initials flag may have (each doubles the spellings to look for).
    static let maximumInitialsSyllables = 6

    /// The spellings of `word`: the word itself and, with `initials`, every spelling that writes one or more of its
    /// syllables as the bare initial consonant (시발 → ㅅ발, 시ㅂ, ㅅㅂ). Throws a reason when the word has no letters,
    /// mixes Hangul with Latin letters, or asks for initials without being Hangul syllables.
    static func spellings(of word: String, initials: Bool, wholeWord: Bool, source: Int) throws(PatternError) -> [FilterPattern] {
        let characters = word.map { ($0, FilterCharacter($0)) }
        let hasHangul = characters.contains { $0.1.isHangul }
        let hasLatin = characters.contains { !$0.1.latin.isEmpty }
        guard hasHangul != hasLatin else {
            throw PatternError(reason: hasHangul ? "mixes Hangul and Latin letters" : "has no letters")
        }
        let script: FilterScript = hasHangul ? .hangul : .latin
        var options: [[[FilterLetter]]] = []
        for (character, read) in characters {
            let letters = hasHangul ? read.hangul : read.latin
            guard !letters.isEmpty else { continue }
            if initials, let initial = bareInitial(of: character) {
                options.append([letters, [initial]])
            } else {
                options.append([letters])
            }
        }
        if initials {
            guard hasHangul, options.count >= 2, options.allSatisfy({ $0.count == 2 }) else {
                throw PatternError(reason: "can have initials only when written in two or more Hangul syllables")
            }
            guard options.count <= maximumInitialsSyllables else {
                throw PatternError(reason: "can have initials only up to \(maximumInitialsSyllables) syllables")
            }
        }
        var spellings: [[[FilterLetter]]] = [[]]
        for choice in options {
            spellings = spellings.flatMap { spelling in choice.map { spelling + [$0] } }
        }
        return spellings.map { spelling in
            FilterPattern(letters: spelling.flatMap { $0 }, script: script, source: source, wholeWord: wholeWord)
        }
    }

    /// The initial consonant of a Hangul syllable as a lone jamo (ㅇ included, tense folded), or nil.
    private static func bareInitial(of character: Character) -> FilterLetter? {
        let scalars = String(character).precomposedStringWithCanonicalMapping.unicodeScalars
        guard scalars.count == 1, let scalar = scalars.first, let parts = HangulJamo.decompose(scalar),
              let letter = HangulJamo.folded(parts.initial).first
        else { return nil }
        return FilterLetter(value: letter, roles: .bare, startsSyllable: true)
    }

    /// Whether `text` has this pattern at `start` of its `stream`, each letter at most `maximumGap` characters after
    /// the one before. A letter may be repeated (`fuuuck`, `시이이발`, `십발`): the text's next letters with the same
    /// value and role are taken with it, unless white space comes between or the pattern itself repeats the letter
    /// (`ass`, 존나: then each of the pattern's letters takes one). Returns whether the match skips white
    /// space and the stream index of its last letter, or nil when there is no match there.
    func match(in stream: [StreamLetter], at start: Int, of text: FilterText, maximumGap: Int) -> (spaced: Bool, end: Int)? {
        var index = start
        var spaced = false
        for (position, wanted) in letters.enumerated() {
            guard index < stream.count, Self.accepts(wanted, stream[index].letter, first: position == 0) else { return nil }
            if position > 0 {
                let previous = stream[index - 1].offset
                let offset = stream[index].offset
                guard offset - previous - 1 <= maximumGap else { return nil }
                spaced = spaced || text.hasSpace(after: previous, before: offset)
            }
            let repeatable = position == letters.count - 1 || letters[position + 1].value != wanted.value
            while repeatable, index + 1 < stream.count, stream[index + 1].letter.value == wanted.value,
                  wanted.roles.contains(.latin) || !stream[index + 1].letter.roles.isDisjoint(with: wanted.roles.union(.bare)),
                  stream[index + 1].offset - stream[index].offset - 1 <= maximumGap,
                  !text.hasSpace(after: stream[index].offset, before: stream[index + 1].offset) {
                index += 1
            }
            index += 1
        }
        return (spaced, index - 1)
    }

    /// Whether the text's `letter` may stand for the pattern's `wanted` letter. Latin letters need only be equal.
    /// A Hangul pattern starts at the start of a syllable. A lone jamo in the text stands for any letter; a lone jamo
    /// in the pattern (an initials spelling) needs a lone jamo. Otherwise the roles agree, except that an initial
    /// consonant after the first may be written as the final of the syllable before (십알 for 시발: the same sound).
    static func accepts(_ wanted: FilterLetter, _ letter: FilterLetter, first: Bool) -> Bool {
        guard wanted.value == letter.value else { return false }
        if wanted.roles.contains(.latin) { return true }
        if first && !letter.startsSyllable { return false }
        if letter.roles.contains(.bare) { return true }
        var allowed = wanted.roles.subtracting(.bare)
        if wanted.roles.contains(.initial) && !first { allowed.insert(.final) }
        return !allowed.isDisjoint(with: letter.roles)
    }

    /// Why a word cannot be a pattern.
    struct PatternError: Error {
        /// The reason, in words for the list's author.
        let reason: String
    }
}
