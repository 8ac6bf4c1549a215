extension SearchTokenizer {
    /// The Hangul syllables of a text made only of ASCII and precomposed syllables, as a quick test of run terms
    /// (``SearchQuery/matches(_:)-(String)``): syllables with only spaces and tabs between them are joined, and any
    /// other character, a line break included, ends a stretch of them.
    ///
    /// The stretches are the runs of such a text's ``Document``, which joins runs across spaces on one line, so a run
    /// pattern is found in a stretch exactly when it is found in a run of the document: the stretches decide a query of
    /// run terms alone, and rule out a match of any other. They cost one pass over the text and one array, where
    /// cutting it into a document costs an array per piece and per run.
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
                case 0x09, 0x20:
                    continue
                case 0x00...0x7F:
                    // Line breaks (LF, VT, FF, CR), as the document's white space turns them, and every other scalar.
                    if let last = scalars.last, last != " " { scalars.append(" ") }
                default:
                    return nil
                }
            }
            self.scalars = scalars
        }
    }
}
