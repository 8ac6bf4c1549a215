extension SearchTokenizer {
    /// A document cut into the units that searching sees: joined Hangul/CJK runs and words.
    ///
    /// Cutting a document costs more than testing a query against it: to test many queries against one
    /// listing (alert matching), cut it once and call ``SearchQuery/matches(_:)-(Document)`` for each.
    public struct Document: Sendable {
        /// One searchable unit of a document, in text order.
        enum Unit: Equatable, Sendable {
            /// A Hangul/CJK run, joined with the runs that followed it after spaces only.
            case run([Unicode.Scalar])
            /// A word (ASCII, or letters and digits of another script).
            case word([Unicode.Scalar])
        }

        /// The document's units, in text order.
        let units: [Unit]

        /// Cuts `text` (any text; it is normalized here) into units.
        public init(text: String) {
            var units: [Unit] = []
            var run: [Unicode.Scalar] = []
            for piece in Lexer.pieces(of: TextNormalizer.normalizedScalars(text)) {
                if piece.kind == .run, piece.continuesRun || run.isEmpty {
                    run.append(contentsOf: piece.scalars)
                    continue
                }
                if !run.isEmpty {
                    units.append(.run(run))
                    run = []
                }
                if piece.kind == .run {
                    run = piece.scalars
                } else {
                    units.append(.word(piece.scalars))
                }
            }
            if !run.isEmpty {
                units.append(.run(run))
            }
            self.units = units
        }

        /// The tokens to index: each word, each unigram and bigram of each run, and for each adjacent pair of
        /// Hangul syllables (or consonants typed alone) the bigram of their initial consonants (`수학` gives `ᄉᄒ`),
        /// which initial-consonant queries need (``SearchQuery/RunPattern``).
        func indexTokens() -> [String] {
            var tokens: [String] = []
            for unit in units {
                switch unit {
                case .word(let scalars):
                    tokens.append(TokenEncoder.wordToken(scalars[...]))
                case .run(let scalars):
                    for index in scalars.indices {
                        tokens.append(TokenEncoder.runToken(scalars[index...index]))
                        guard index + 1 < scalars.endIndex else { continue }
                        tokens.append(TokenEncoder.runToken(scalars[index...index + 1]))
                        let (first, second) = (scalars[index], scalars[index + 1])
                        // Two consonants typed alone are their own initials bigram, just added.
                        if let firstInitial = HangulJamo.initial(of: first), let secondInitial = HangulJamo.initial(of: second),
                           !(HangulJamo.isInitial(first) && HangulJamo.isInitial(second)) {
                            tokens.append(TokenEncoder.runToken([firstInitial, secondInitial][...]))
                        }
                    }
                }
            }
            return tokens
        }

        /// Whether `pattern` occurs inside one run.
        func containsInRun(_ pattern: SearchQuery.RunPattern) -> Bool {
            units.contains { unit in
                guard case .run(let scalars) = unit else { return false }
                return pattern.isFound(in: scalars)
            }
        }

        /// Whether some word starts with `prefix`.
        func containsWord(withPrefix prefix: [Unicode.Scalar]) -> Bool {
            units.contains { unit in
                guard case .word(let scalars) = unit else { return false }
                return scalars.starts(with: prefix)
            }
        }
    }

    /// Spells run n-grams and words as tokens that both FTS5 and PostgreSQL keep unchanged.
    enum TokenEncoder {
        /// Digits of the escape encoding: each escaped scalar is four of them (36⁴ > U+10FFFF).
        private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".unicodeScalars)

        /// The token of a run n-gram: as is when made of Hangul syllables only, escaped otherwise.
        static func runToken(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
            if scalars.allSatisfy(isHangulSyllable) {
                return String(String.UnicodeScalarView(scalars))
            }
            return escaped(scalars)
        }

        /// The token of a word (or of a query word's prefix): as is when ASCII, escaped otherwise, and cut to
        /// ``SearchTokenizer/maximumTokenLength`` characters. Cutting and escaping keep prefixes: if `p` is a
        /// prefix of `w`, `wordToken(p)` is a prefix of `wordToken(w)` or equal to it.
        static func wordToken(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
            let token = scalars.allSatisfy(isASCIIWordScalar) ? String(String.UnicodeScalarView(scalars)) : escaped(scalars)
            // Tokens are ASCII here, so characters, scalars and bytes coincide.
            return String(token.prefix(maximumTokenLength))
        }

        /// ``SearchTokenizer/escapeMarker`` followed by four base-36 digits per scalar.
        static func escaped(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
            var result = String.UnicodeScalarView(escapeMarker.unicodeScalars)
            for scalar in scalars {
                var value = Int(scalar.value)
                var chunk: [Unicode.Scalar] = []
                for _ in 0..<4 {
                    chunk.append(digits[value % 36])
                    value /= 36
                }
                result.append(contentsOf: chunk.reversed())
            }
            return String(result)
        }

        /// Whether `scalar` is a precomposed Hangul syllable (U+AC00–U+D7A3).
        static func isHangulSyllable(_ scalar: Unicode.Scalar) -> Bool {
            HangulJamo.syllables.contains(scalar.value)
        }

        /// Whether `scalar` is `a`–`z` or `0`–`9`.
        static func isASCIIWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x30...0x39, 0x61...0x7A: true
            default: false
            }
        }
    }
}
