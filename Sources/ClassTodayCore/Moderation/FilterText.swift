/// A letter of a text's letter stream, with the character it was read from.
struct StreamLetter: Sendable {
    /// The letter.
    let letter: FilterLetter
    /// The offset of the character it was read from.
    let offset: Int
}

/// A text read for the filter: its characters, and for each script the stream of its letters in order.
struct FilterText: Sendable {
    /// What each character gave.
    let characters: [FilterCharacter]
    /// The Hangul letters.
    let hangul: [StreamLetter]
    /// The Latin letters.
    let latin: [StreamLetter]
    /// `spacesBefore[i]`: how many of the first `i` characters are white space.
    private let spacesBefore: [Int]

    /// Reads `text`, character by character (grapheme clusters, so an emoji stays one character).
    init(_ text: String) {
        let characters = text.map(FilterCharacter.init)
        var spaces = [0]
        spaces.reserveCapacity(characters.count + 1)
        for character in characters {
            spaces.append(spaces[spaces.count - 1] + (character.isSpace ? 1 : 0))
        }
        self.characters = characters
        self.spacesBefore = spaces
        self.hangul = Self.stream(characters.map(\.hangul))
        self.latin = Self.stream(Self.latinReadings(of: characters))
    }

    /// The letters of one script in order, each with the offset of its character.
    static func stream(_ lettersByCharacter: [[FilterLetter]]) -> [StreamLetter] {
        lettersByCharacter.enumerated().flatMap { offset, letters in
            letters.map { StreamLetter(letter: $0, offset: offset) }
        }
    }

    /// The letter stream of `script`.
    func letters(_ script: FilterScript) -> [StreamLetter] {
        switch script {
        case .hangul: hangul
        case .latin: latin
        }
    }

    /// Whether any character strictly between offsets `after` and `before` is white space.
    func hasSpace(after: Int, before: Int) -> Bool {
        before - after > 1 && spacesBefore[before] - spacesBefore[after + 1] > 0
    }

    /// Whether the character at `offset` continues a word of `script` (a Hangul character, or a Latin letter or
    /// digit); false outside the text.
    func isWordCharacter(at offset: Int, _ script: FilterScript) -> Bool {
        guard characters.indices.contains(offset) else { return false }
        switch script {
        case .hangul: return characters[offset].isHangul
        case .latin: return characters[offset].isLatinWordCharacter
        }
    }
}
