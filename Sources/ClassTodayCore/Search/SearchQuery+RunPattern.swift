extension SearchQuery {
    /// How a run term (Hangul/CJK, spaces removed) finds its place in a document run.
    ///
    /// - **Literally**, character by character: `요가수업` occurs in `요가 수업 안내`.
    /// - **By initial consonants**, when the term has two characters or more and at least one of them is a consonant
    ///   typed alone (`ㅅㅎ`, `수ㅎ`): such a consonant stands for any syllable that starts with it, the other
    ///   characters match literally. `ㅅㅎ` finds `수학` and `실험`, `수ㅎ` finds `수학` but not `실험`. A lone consonant
    ///   (`ㅅ`) matches only itself: as a query it would find nearly everything.
    /// - **With one typo**, when the term is ``typoTolerantLengths`` Hangul syllables: one of its syllables may differ
    ///   from the document's in one jamo (leading consonant, vowel or trailing consonant, a missing one included):
    ///   `피아너` finds `피아노`, `바리스터` finds `바리스타`. Exact occurrences are found too.
    struct RunPattern: Sendable, Hashable {
        /// The lengths, in syllables, of the terms that tolerate a one-jamo typo.
        static let typoTolerantLengths = 3...12

        /// The term's characters.
        let scalars: [Unicode.Scalar]
        /// Whether consonants typed alone stand for the syllables that start with them.
        let matchesInitials: Bool
        /// Whether one syllable may differ by one jamo.
        let toleratesTypo: Bool

        /// The pattern of the normalized run `text`.
        init(_ text: String) {
            scalars = Array(text.unicodeScalars)
            matchesInitials = scalars.count >= 2 && scalars.contains(where: HangulJamo.isInitial)
            toleratesTypo = Self.typoTolerantLengths.contains(scalars.count) && scalars.allSatisfy(HangulJamo.isSyllable)
        }

        /// Whether the pattern occurs in `run`, contiguously.
        func isFound(in run: [Unicode.Scalar]) -> Bool {
            guard !scalars.isEmpty else { return true }
            guard run.count >= scalars.count else { return false }
            return (0...(run.count - scalars.count)).contains { start in matches(at: start, in: run) }
        }

        /// Whether the pattern matches `run` from `start` on.
        private func matches(at start: Int, in run: [Unicode.Scalar]) -> Bool {
            var typos = 0
            for (offset, wanted) in scalars.enumerated() {
                let found = run[start + offset]
                if wanted == found { continue }
                if matchesInitials, HangulJamo.isInitial(wanted), HangulJamo.isSyllable(found), HangulJamo.initial(of: found) == wanted {
                    continue
                }
                if toleratesTypo, typos == 0, HangulJamo.differByOneJamo(wanted, found) {
                    typos += 1
                    continue
                }
                return false
            }
            return true
        }

        /// The tokens a document holding the pattern surely has (see ``SearchTokenizer/Document``'s index tokens).
        /// With `presentBigrams` (a superset of the Hangul bigrams the index holds, see ``typoBigrams``), a typo no
        /// listing can hold is not looked for.
        func indexCondition(presentBigrams: Set<String>? = nil) -> IndexCondition {
            if matchesInitials { return IndexCondition(alternatives: [initialsTokens]) }
            if toleratesTypo { return IndexCondition(alternatives: typoAlternatives(presentBigrams: presentBigrams)) }
            if scalars.count == 1 { return IndexCondition(alternatives: [[token(0...0)]]) }
            return IndexCondition(alternatives: [exactTokens])
        }

        /// The tokens of an exact occurrence of two characters or more: each bigram.
        private var exactTokens: [TokenRequirement] {
            scalars.indices.dropLast().map { token($0...$0 + 1) }
        }

        /// With initial consonants: the initials bigram of each adjacent pair holding a consonant alone, the literal
        /// bigram of each pair of literal characters, and the unigram of a literal character in no such bigram.
        private var initialsTokens: [TokenRequirement] {
            var tokens: [TokenRequirement] = []
            var covered = Set<Int>()
            for index in scalars.indices.dropLast() {
                let (first, second) = (scalars[index], scalars[index + 1])
                let literal = !HangulJamo.isInitial(first) && !HangulJamo.isInitial(second)
                if literal {
                    tokens.append(token(index...index + 1))
                    covered.formUnion([index, index + 1])
                } else if let firstInitial = HangulJamo.initial(of: first), let secondInitial = HangulJamo.initial(of: second) {
                    tokens.append(TokenRequirement(token: SearchTokenizer.TokenEncoder.runToken([firstInitial, secondInitial][...]), isPrefix: false))
                }
            }
            for index in scalars.indices where !HangulJamo.isInitial(scalars[index]) && !covered.contains(index) {
                tokens.append(token(index...index))
            }
            return tokens.uniqued()
        }

        /// With a typo allowed, for each syllable that may be the mistyped one, the tokens that do not touch it: at
        /// most two bigrams, the first and the last, with the unigram of a first or last syllable they leave out
        /// (`공업수학` mistyped in `업` needs `공` and `수학`: in the bench's million listings, `수학` alone is held by seven
        /// times as many); or the other syllables' unigrams when no bigram is left. These hold for an exact occurrence too.
        ///
        /// Given `presentBigrams`, a syllable is left out when none of its typos (``typos(at:)``) forms bigrams that are
        /// all present: no listing holds such a typo. When every syllable is, the exact word remains, needing all its
        /// bigrams. Leaving alternatives out never adds a token to the index query, so it costs the index nothing.
        private func typoAlternatives(presentBigrams: Set<String>?) -> [[TokenRequirement]] {
            let possible = scalars.indices.filter { typo in
                presentBigrams.map { present in typos(at: typo).contains { $0.allSatisfy(present.contains) } } ?? true
            }
            guard !possible.isEmpty else { return [exactTokens] }
            return possible.map(coarseAlternative(typo:)).uniqued()
        }

        /// The alternative of a typo in the syllable at `typo` (see ``typoAlternatives(presentBigrams:)``).
        private func coarseAlternative(typo: Int) -> [TokenRequirement] {
            let bigrams = scalars.indices.dropLast().filter { $0 != typo && $0 + 1 != typo }
            guard let first = bigrams.first, let last = bigrams.last else {
                return scalars.indices.filter { $0 != typo }.map { token($0...$0) }
            }
            let ends = [scalars.startIndex, scalars.endIndex - 1].filter { $0 != typo && ($0 < first || $0 > last + 1) }
            return [first, last].uniqued().map { token($0...$0 + 1) } + ends.map { token($0...$0) }
        }

        /// For each syllable one jamo away from the one at `typo`, the bigrams it forms with the term's syllables
        /// beside it, as index tokens.
        private func typos(at typo: Int) -> [[String]] {
            HangulJamo.oneJamoAway(from: scalars[typo]).map { syllable in
                var bigrams: [String] = []
                if typo > 0 { bigrams.append(String(String.UnicodeScalarView([scalars[typo - 1], syllable]))) }
                if typo + 1 < scalars.count { bigrams.append(String(String.UnicodeScalarView([syllable, scalars[typo + 1]]))) }
                return bigrams
            }
        }

        /// Every bigram a typo of this pattern may form (``typos(at:)``), when it tolerates one: which of them the index
        /// holds tells which typos its condition must look for (``indexCondition(presentBigrams:)``).
        var typoBigrams: [String] {
            guard toleratesTypo else { return [] }
            return scalars.indices.flatMap { typos(at: $0).joined() }
        }

        /// The literal run token of `range`.
        private func token(_ range: ClosedRange<Int>) -> TokenRequirement {
            TokenRequirement(token: SearchTokenizer.TokenEncoder.runToken(scalars[range]), isPrefix: false)
        }
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
