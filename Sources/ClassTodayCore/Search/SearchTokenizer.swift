/// Turns class text and user queries into keyword-search tokens that work for Korean and English.
///
/// The same tokens are meant for an SQLite FTS5 table and a PostgreSQL `tsvector` built with the
/// `simple` configuration, so every token is a plain word made only of `a`–`z`, `0`–`9` and precomposed
/// Hangul syllables (U+AC00–U+D7A3); anything else is escaped (see ``escapeMarker``). No token contains
/// a character that FTS5's `unicode61`/`ascii` tokenizers or PostgreSQL's default parser would split on
/// or change.
///
/// Token scheme, on ``normalize(_:)``d text:
/// - **Hangul/CJK runs** (Hangul, Han, kana): runs separated only by spaces on the same line are joined
///   (so `요가 수업` and `요가수업` both give the run `요가수업`), then every syllable (unigram) and every
///   pair of adjacent syllables (bigram) of the joined run is a token: `요`, `요가`, `가`, `가수`, `수`,
///   `수업`, `업`. A query run matches when it is a substring of a joined document run; it requires its
///   bigrams (or its single unigram).
/// - **Words** (letters and digits of other scripts, split where ASCII meets non-ASCII): one token per word,
///   at most ``maximumTokenLength`` characters. A query word matches as a prefix of a document word and
///   becomes an FTS5 prefix query (`"gui"*`).
/// - Everything else (punctuation, symbols, emoji) separates tokens and is never indexed.
public enum SearchTokenizer {
    /// The longest word token stored or queried; longer words are cut to this many characters,
    /// which keeps prefix search exact because a query word is cut the same way.
    public static let maximumTokenLength = 64

    /// The version of ``indexTokens(for:)``: stored with the index, so that listings indexed by an earlier version
    /// are re-indexed (``ClassRepository/upgradeKeywordIndex(batchSize:)``). Version 2 added initial-consonant bigrams;
    /// version 3 stores the name's tokens apart as well, for relevance order (``SearchQuery/RelevanceTier``).
    public static let indexVersion = 3

    /// The most token requirements a query puts into its FTS5/tsquery expression. Dropping requirements
    /// only widens the candidate set, which ``SearchQuery/matches(_:)`` then filters exactly.
    public static let maximumMatchTerms = 32

    /// Starts every escaped token (a word or CJK n-gram holding characters outside `a`–`z`, `0`–`9` and
    /// Hangul syllables); each escaped character then follows as four base-36 digits of its code point.
    public static let escapeMarker = "qx"

    /// One token standing for `text` exactly, every character escaped (``escapeMarker`` and four base-36 digits
    /// each): for values that are matched whole, such as a district name, beside the search tokens.
    public static func literalToken(_ text: String) -> String {
        TokenEncoder.escaped(Array(text.unicodeScalars)[...])
    }

    /// Normalizes `text` for display-independent comparison: NFKC, lower case, diacritics removed from
    /// Latin, Greek and Cyrillic letters (`CAFÉ` → `cafe`), a few Latin letters spelled out (`ß` → `ss`),
    /// Hangul jamo sequences composed into syllables (never decomposed), invisible characters removed,
    /// and every run of white space collapsed into one space, without leading or trailing space.
    public static func normalize(_ text: String) -> String {
        let scalars = TextNormalizer.normalizedScalars(text).map { $0 == "\n" ? " " : $0 }
        return String(String.UnicodeScalarView(scalars))
    }

    /// The tokens to store for a document, in text order and with repetitions. Pass the class name and description
    /// joined by a newline: a line break separates Hangul runs, so words of the name and the description are never
    /// joined.
    public static func indexTokens(for text: String) -> [String] {
        Document(text: text).indexTokens()
    }

    /// ``indexTokens(for:)`` joined by single spaces: the value to insert into the FTS5 column or to pass
    /// to `to_tsvector('simple', …)`.
    public static func indexText(for text: String) -> String {
        indexTokens(for: text).joined(separator: " ")
    }

    /// The bigrams of Hangul syllables among the tokens of `indexText` (``indexText(for:)``), each once: the index's
    /// bigrams that a typo-tolerant query looks up (``SearchQuery/typoBigrams``) are these of every listing.
    public static func syllableBigrams(inIndexText indexText: String) -> Set<String> {
        Set(indexText.split(separator: " ").lazy.filter { token in
            token.unicodeScalars.count == 2 && token.unicodeScalars.allSatisfy(HangulJamo.isSyllable)
        }.map(String.init))
    }

    /// The index words among the tokens of `indexText` (``indexText(for:)``) that an index's vocabulary lists
    /// (``isListedWord(_:)``), each once: a word term starting few of them names them instead of its prefix
    /// (``SearchQuery/expandablePrefixes``).
    public static func listedWords(inIndexText indexText: String) -> Set<String> {
        Set(indexText.split(separator: " ").lazy.filter(isListedWord).map(String.init))
    }

    /// Whether index tokens starting with `prefix` may be escaped ones (``escapeMarker``): `q`, `qx`, or anything
    /// starting `qx`.
    static func mayStartEscapedTokens(_ prefix: some StringProtocol) -> Bool {
        escapeMarker.hasPrefix(prefix) || prefix.hasPrefix(escapeMarker)
    }

    /// Whether an index token is a word a vocabulary lists: ASCII letters and digits, not starting with
    /// ``escapeMarker``, as no other token (a Hangul n-gram, an escaped word or n-gram) can be.
    public static func isListedWord(_ token: Substring) -> Bool {
        !token.isEmpty && !token.hasPrefix(escapeMarker)
            && token.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    /// Parses a user's search text; nil when it holds nothing searchable (empty, only white space,
    /// punctuation or symbols), which the API reports as an invalid query.
    public static func query(_ text: String) -> SearchQuery? {
        let pieces = Lexer.pieces(of: TextNormalizer.normalizedScalars(text))
        var terms: [SearchQuery.Term] = []
        for piece in pieces {
            let value = String(String.UnicodeScalarView(piece.scalars))
            let term: SearchQuery.Term = piece.kind == .run ? .substring(value) : .prefix(value)
            if !terms.contains(term) {
                terms.append(term)
            }
        }
        return terms.isEmpty ? nil : SearchQuery(terms: terms)
    }
}
