/// What search asks of Hangul letters: initial-consonant search (`ㅅㅎ` finds `수학`) and a one-jamo typo (`피아너`
/// finds `피아노`).
///
/// Text reaches search normalized (NFKC), so the consonants a keyboard types alone (compatibility jamo such as `ㅅ`,
/// U+3145) arrive as leading consonants (choseong, U+1100–U+1112); those are the initials here.
extension HangulJamo {
    /// The leading consonants (choseong) as normalization leaves a consonant typed alone.
    private static let leadingConsonants: ClosedRange<UInt32> = 0x1100...0x1112

    /// Whether `scalar` is a precomposed Hangul syllable.
    static func isSyllable(_ scalar: Unicode.Scalar) -> Bool {
        decompose(scalar) != nil
    }

    /// Whether `scalar` is a leading consonant typed alone (choseong, after normalization).
    static func isInitial(_ scalar: Unicode.Scalar) -> Bool {
        leadingConsonants.contains(scalar.value)
    }

    /// The leading consonant of a syllable (`수` → `ᄉ`), a leading consonant itself, or nil for anything else.
    static func initial(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        if isInitial(scalar) { return scalar }
        guard isSyllable(scalar) else { return nil }
        return Unicode.Scalar(leadingConsonants.lowerBound + (scalar.value - syllableBase) / 588)
    }

    /// Whether two syllables differ in exactly one of their leading consonant, vowel and final consonant (a missing
    /// final counts as one): `노`/`너`, `수`/`숙`, `가`/`카`. A syllable's index in its block is its three jamo's indices
    /// (588 per leading consonant, 28 per vowel), compared here without decomposing: confirming a typo-tolerant word
    /// calls this at nearly every place of a listing's text.
    static func differByOneJamo(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Bool {
        let (a, b) = (first.value &- syllableBase, second.value &- syllableBase)
        guard a < syllableCount, b < syllableCount else { return false }
        let differing = (a / 588 == b / 588 ? 0 : 1) + (a % 588 / 28 == b % 588 / 28 ? 0 : 1) + (a % 28 == b % 28 ? 0 : 1)
        return differing == 1
    }

    /// The 65 syllables that differ from `syllable` in exactly one jamo (``differByOneJamo(_:_:)``), or none when
    /// `syllable` is not a precomposed syllable.
    static func oneJamoAway(from syllable: Unicode.Scalar) -> [Unicode.Scalar] {
        let index = syllable.value &- syllableBase
        guard index < syllableCount else { return [] }
        let (initial, vowel, final) = (index / 588, index % 588 / 28, index % 28)
        let initials = (0..<UInt32(19)).filter { $0 != initial }.map { $0 * 588 + vowel * 28 + final }
        let vowels = (0..<UInt32(21)).filter { $0 != vowel }.map { initial * 588 + $0 * 28 + final }
        let finals = (0..<UInt32(28)).filter { $0 != final }.map { initial * 588 + vowel * 28 + $0 }
        return (initials + vowels + finals).compactMap { Unicode.Scalar(syllableBase + $0) }
    }
}
