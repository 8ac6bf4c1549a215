extension SearchTokenizer {
    /// Splits normalized scalars into pieces: Hangul/CJK runs and words, in text order.
    enum Lexer {
        /// A maximal stretch of scalars of one kind.
        struct Piece: Equatable {
            /// What a piece is made of.
            enum Kind: Equatable {
                /// Hangul, Han or kana (with their marks): matched by substring, indexed as n-grams.
                case run
                /// ASCII letters and digits: matched by prefix, stored as is.
                case asciiWord
                /// Letters and digits of other scripts (with their marks): matched by prefix, stored escaped.
                case otherWord
            }

            /// What the piece is made of.
            var kind: Kind
            /// The piece's normalized scalars.
            var scalars: [Unicode.Scalar]
            /// Whether this run follows the previous run with only spaces between them on the same line,
            /// so that a document joins the two (spacing-insensitive matching). Always false for words.
            var continuesRun: Bool
        }

        /// How a single normalized scalar takes part in tokenization.
        enum ScalarClass: Equatable {
            /// A space between pieces; runs on both sides of spaces are joined in documents.
            case space
            /// A line break: ends a piece and keeps runs apart.
            case lineBreak
            /// Punctuation, symbols, emoji and controls: ends a piece and keeps runs apart.
            case separator
            /// A combining mark: belongs to the piece before it (or separates when there is none).
            case mark
            /// `a`–`z` or `0`–`9`.
            case asciiWord
            /// A letter or digit of a script other than ASCII and Hangul/CJK.
            case otherWord
            /// A Hangul, Han, kana or bopomofo letter or number.
            case run
        }

        /// The pieces of `scalars`, which must come from ``TextNormalizer/normalizedScalars(_:)``.
        static func pieces(of scalars: [Unicode.Scalar]) -> [Piece] {
            var pieces: [Piece] = []
            var current: Piece?
            // True while the last piece was a run and nothing but spaces followed it.
            var softGapAfterRun = false

            func finishPiece() {
                if let piece = current {
                    pieces.append(piece)
                    current = nil
                }
            }

            for scalar in scalars {
                let kind: Piece.Kind
                switch scalarClass(scalar) {
                case .space:
                    if let piece = current {
                        finishPiece()
                        softGapAfterRun = piece.kind == .run
                    }
                    continue
                case .lineBreak, .separator:
                    finishPiece()
                    softGapAfterRun = false
                    continue
                case .mark:
                    if current != nil, current?.kind != .asciiWord {
                        current?.scalars.append(scalar)
                    } else {
                        finishPiece()
                        softGapAfterRun = false
                    }
                    continue
                case .asciiWord: kind = .asciiWord
                case .otherWord: kind = .otherWord
                case .run: kind = .run
                }
                if current?.kind == kind {
                    current?.scalars.append(scalar)
                    continue
                }
                finishPiece()
                current = Piece(kind: kind, scalars: [scalar], continuesRun: kind == .run && softGapAfterRun)
                softGapAfterRun = false
            }
            finishPiece()
            return pieces
        }

        /// The class of one normalized scalar: ASCII and Hangul syllables, most of a listing's text, without a property
        /// lookup, as ``classByProperties(_:)`` classes them.
        static func scalarClass(_ scalar: Unicode.Scalar) -> ScalarClass {
            switch scalar.value {
            case 0x0A: return .lineBreak
            case 0x09, 0x0B...0x0D, 0x20: return .space
            case 0x30...0x39, 0x61...0x7A: return .asciiWord
            case 0x41...0x5A: return .otherWord
            case 0x00...0x7F: return .separator
            case HangulJamo.syllables: return .run
            default: return classByProperties(scalar)
            }
        }

        /// The class of one normalized scalar from its Unicode properties.
        static func classByProperties(_ scalar: Unicode.Scalar) -> ScalarClass {
            if scalar == "\n" { return .lineBreak }
            if (0x30...0x39).contains(scalar.value) || (0x61...0x7A).contains(scalar.value) { return .asciiWord }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                return .mark
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .letterNumber, .otherNumber:
                return isRunScalar(scalar) ? .run : .otherWord
            default:
                return scalar.properties.isWhitespace ? .space : .separator
            }
        }

        /// Whether a letter or number belongs to a script written without reliable spaces between words
        /// (Hangul, Han, kana, bopomofo), which is matched by substring.
        static func isRunScalar(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x1100...0x11FF, 0x3005...0x3007, 0x3021...0x3029, 0x3031...0x3035, 0x3038...0x303C,
                 0x3040...0x30FF, 0x3100...0x318F, 0x31A0...0x31BF, 0x31F0...0x31FF, 0x3400...0x4DBF,
                 0x4E00...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFF66...0xFFDC,
                 0x20000...0x3FFFF:
                true
            default:
                false
            }
        }
    }
}
