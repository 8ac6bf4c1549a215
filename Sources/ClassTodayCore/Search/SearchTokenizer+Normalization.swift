import Foundation

extension SearchTokenizer {
    /// The normalization pipeline behind ``SearchTokenizer/normalize(_:)``, working on Unicode scalars so
    /// that the index, the queries and ``SearchQuery/matches(_:)`` agree scalar for scalar.
    enum TextNormalizer {
        /// Normalizes `text` like ``SearchTokenizer/normalize(_:)`` but keeps line structure: a run of
        /// white space becomes `"\n"` when it holds a line break and `" "` otherwise.
        static func normalizedScalars(_ text: String) -> [Unicode.Scalar] {
            if let plain = plainScalars(text) { return collapseWhitespace(plain) }
            return collapseWhitespace(composedScalars(text))
        }

        /// The whole pipeline before white space collapses, for any text: NFKC, lower case and NFKC again, invisible
        /// characters removed, diacritics folded, jamo composed.
        static func composedScalars(_ text: String) -> [Unicode.Scalar] {
            let compatible = text.precomposedStringWithCompatibilityMapping.lowercased()
            // Lowercasing can produce sequences that are not NFKC (`İ` → `i` + U+0307), so normalize again.
            let source = compatible.precomposedStringWithCompatibilityMapping.unicodeScalars
            let folded = foldDiacritics(source.filter { !$0.properties.isDefaultIgnorableCodePoint })
            return HangulComposer.compose(folded)
        }

        /// The scalars of `text` lowercased when every one is ASCII or a precomposed Hangul syllable, as most listings'
        /// texts are; nil otherwise. NFKC leaves such text as it is, none of its scalars is invisible or a mark, and no
        /// jamo is left to compose, so this is the pipeline's result before white space collapses, at a fraction of its
        /// cost: keyword candidates confirmed against their text spent most of that time in Foundation's NFKC.
        static func plainScalars(_ text: String) -> [Unicode.Scalar]? {
            var scalars: [Unicode.Scalar] = []
            scalars.reserveCapacity(text.utf8.count)
            for scalar in text.unicodeScalars {
                switch scalar.value {
                case 0x41...0x5A: scalars.append(Unicode.Scalar(scalar.value + 0x20)!)
                case 0x00...0x7F, HangulJamo.syllables: scalars.append(scalar)
                default: return nil
                }
            }
            return scalars
        }

        /// Removes combining marks from Latin, Greek and Cyrillic letters and ASCII digits, and spells out
        /// the Latin letters that have no decomposition. Other scripts (Hangul above all) pass unchanged.
        static func foldDiacritics(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
            var result: [Unicode.Scalar] = []
            result.reserveCapacity(scalars.count)
            var afterFoldableBase = false
            for scalar in scalars {
                if isMark(scalar) {
                    if !afterFoldableBase {
                        result.append(scalar)
                    }
                    continue
                }
                afterFoldableBase = isFoldableBase(scalar)
                guard afterFoldableBase, !scalar.isASCII else {
                    result.append(scalar)
                    continue
                }
                for part in String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars where !isMark(part) {
                    if let spelled = spelledOut[part] {
                        result.append(contentsOf: spelled.unicodeScalars)
                    } else {
                        result.append(part)
                    }
                }
            }
            return result
        }

        /// Turns every run of white space into one `" "`, or one `"\n"` when the run holds a line break,
        /// and drops white space at both ends.
        static func collapseWhitespace(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
            var result: [Unicode.Scalar] = []
            result.reserveCapacity(scalars.count)
            var pending: Unicode.Scalar?
            for scalar in scalars {
                if isWhitespace(scalar) {
                    if isLineBreak(scalar) {
                        pending = "\n"
                    } else if pending == nil {
                        pending = " "
                    }
                    continue
                }
                if let separator = pending, !result.isEmpty {
                    result.append(separator)
                }
                pending = nil
                result.append(scalar)
            }
            return result
        }

        /// Whether `scalar` is white space (Unicode's `White_Space`), looked up only beyond ASCII and Hangul syllables.
        static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09...0x0D, 0x20: true
            case 0x00...0x7F, HangulJamo.syllables: false
            default: scalar.properties.isWhitespace
            }
        }

        /// Whether `scalar` is a combining mark (general category M).
        static func isMark(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: true
            default: false
            }
        }

        /// Whether `scalar` ends a line (LF, VT, FF, CR, NEL, LINE and PARAGRAPH SEPARATOR).
        static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
            default: false
            }
        }

        /// Whether marks after `scalar` are diacritics to remove: ASCII letters and digits and the Latin,
        /// Greek and Cyrillic blocks.
        static func isFoldableBase(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
            case 0xC0...0x24F, 0x370...0x4FF, 0x1E00...0x1FFF: scalar.properties.isAlphabetic
            default: false
            }
        }

        /// Lowercase Latin letters without a canonical decomposition, spelled with ASCII letters;
        /// also the Greek final sigma, folded to the ordinary sigma.
        static let spelledOut: [Unicode.Scalar: String] = [
            "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "þ": "th",
            "ł": "l", "ı": "i", "ħ": "h", "ŧ": "t", "ƒ": "f", "ς": "σ",
        ]
    }

    /// Composes conjoining Hangul jamo into precomposed syllables (L V → LV, LV T → LVT), which
    /// Foundation's NFKC does not always do on every platform.
    enum HangulComposer {
        private static let syllableBase: UInt32 = 0xAC00
        private static let leadingBase: UInt32 = 0x1100
        private static let vowelBase: UInt32 = 0x1161
        private static let trailingBase: UInt32 = 0x11A7
        private static let vowelCount: UInt32 = 21
        private static let trailingCount: UInt32 = 28
        private static let syllableCount: UInt32 = 11_172

        /// `scalars` with every composable jamo sequence replaced by its syllable.
        static func compose(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
            var result: [Unicode.Scalar] = []
            result.reserveCapacity(scalars.count)
            for scalar in scalars {
                if let last = result.last, let composed = combine(last, scalar) {
                    result[result.count - 1] = composed
                } else {
                    result.append(scalar)
                }
            }
            return result
        }

        /// The syllable made of `first` followed by `second`, if they compose.
        static func combine(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Unicode.Scalar? {
            let a = first.value
            let b = second.value
            if (leadingBase..<leadingBase + 19).contains(a), (vowelBase..<vowelBase + vowelCount).contains(b) {
                let value = syllableBase + ((a - leadingBase) * vowelCount + (b - vowelBase)) * trailingCount
                return Unicode.Scalar(value)
            }
            if (syllableBase..<syllableBase + syllableCount).contains(a), (a - syllableBase) % trailingCount == 0,
               (trailingBase + 1..<trailingBase + trailingCount).contains(b) {
                return Unicode.Scalar(a + (b - trailingBase))
            }
            return nil
        }
    }
}
