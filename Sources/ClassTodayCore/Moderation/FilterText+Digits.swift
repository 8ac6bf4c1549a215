/// When a digit reads as a letter. People arranging a class write times, dates, prices and phone numbers
/// (`오후 4시 55분`, `010-4555-6655`), and `4`, `5` and `5` read as `a s s`; only someone disguising an English word
/// writes digits among Latin letters (`sh1t`, `5hit`, `a55hole`, `f4ck`). So a run of digits reads as letters only
/// when both hold:
/// - it stands in an English word that holds a Latin letter: a stretch of Latin letters, digits and look-alike signs
///   (`$`, `@`, `!`, `|`) with nothing else between (`4$$hole` is one word; `4-55`, `4시` and `455665` hold no letter);
/// - neither character beside it is Hangul, since Korean glues counters and endings onto numbers (`4시`, `55분`,
///   `A55로`).
///
/// Digits whose letters do not count are still characters that may stand between two letters of a word.
extension FilterText {
    /// The Latin letters of each of `characters` that count: a digit's letters only where the rule above allows them.
    static func latinReadings(of characters: [FilterCharacter]) -> [[FilterLetter]] {
        let inWordWithLetter = wordsHoldingLetters(characters)
        var readings = characters.map(\.latin)
        var start = 0
        while start < characters.count {
            guard characters[start].latinKind == .digit else {
                start += 1
                continue
            }
            var end = start
            while end + 1 < characters.count, characters[end + 1].latinKind == .digit {
                end += 1
            }
            let besideHangul = [start - 1, end + 1].contains { characters.indices.contains($0) && characters[$0].isHangul }
            if besideHangul || !inWordWithLetter[start] {
                for offset in start...end {
                    readings[offset] = []
                }
            }
            start = end + 1
        }
        return readings
    }

    /// For each character, whether it stands in an English word (letters, digits and look-alike signs written
    /// together) that holds at least one Latin letter.
    private static func wordsHoldingLetters(_ characters: [FilterCharacter]) -> [Bool] {
        var holdsLetter = [Bool](repeating: false, count: characters.count)
        var wordStart = 0
        for offset in 0...characters.count where offset == characters.count || characters[offset].latinKind == .none {
            let word = wordStart..<offset
            if characters[word].contains(where: { $0.latinKind == .letter }) {
                holdsLetter.replaceSubrange(word, with: repeatElement(true, count: word.count))
            }
            wordStart = offset + 1
        }
        return holdsLetter
    }
}
