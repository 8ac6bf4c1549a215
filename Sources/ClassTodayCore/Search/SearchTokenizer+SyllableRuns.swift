extension SearchTokenizer {
    /// The Hangul syllables of a text made only of ASCII and precomposed syllables, as a quick test of run terms
    /// (``SearchQuery/matches(_:)-(String)``): syllables with only white space between them are joined, and any other
    /// character ends a stretch of them.
    ///
    /// Every run of such a text's ``Document`` lies inside one stretch (the document also ends its runs at line
    /// breaks), so a run pattern found in no stretch is found in no run of the document: the stretches can rule a
    /// match out, never in. They cost one pass over the text and one array, where cutting it into a document costs an
    /// array per piece and per run.
    struct SyllableRuns {
        /// The stretches in text order, each but the first after one space, which no run pattern holds.
        let scalars: [Unicode.Scalar]

        /// The stretches of `text`; nil when it holds a scalar that is neither ASCII nor a precomposed syllable.
        init?(text: String) {
            var scalars: [Unicode.Scalar] = []
            scalars.reserveCapacity(text.utf8.count / 3)
            for scalar in text.unicodeScalars {
                switch scalar.value {
                case HangulJamo.syllables:
                    scalars.append(scalar)
                case 0x09...0x0D, 0x20:
                    continue
                case 0x00...0x7F:
                    if let last = scalars.last, last != " " { scalars.append(" ") }
                default:
                    return nil
                }
            }
            self.scalars = scalars
        }
    }
}
