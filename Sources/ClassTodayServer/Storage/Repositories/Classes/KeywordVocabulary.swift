import ClassTodayCore

/// What the listings' keyword tokens hold, on either backend: their Hangul bigrams (table `keyword_bigrams`) and their
/// words of ASCII letters and digits (`keyword_words`, ``SearchTokenizer/isListedWord(_:)``). A typo-tolerant keyword
/// looks up the bigrams its typos may form (``SearchQuery/typoBigrams``) and leaves out of its index query the typos
/// none of whose bigrams are all found: no listing holds them. A word looks up the words it starts
/// (``SearchQuery/expandablePrefixes``) and names them instead of its prefix when they are few.
///
/// Both are added as listings are indexed, in the same transaction, and never removed: the tables hold every bigram
/// and word of the index, and some that no listing holds any more, which only widen a query.
enum KeywordVocabulary {
    /// Adds the bigrams and words of a listing's tokens, inside the caller's transaction. They are inserted in order,
    /// so that two transactions adding the same new ones wait for each other in the same order.
    static func record(_ tokens: ClassSearchDocument.Tokens, _ db: any SQLExecutor) async throws {
        try await insert(SearchTokenizer.syllableBigrams(inIndexText: tokens.all), into: "keyword_bigrams", column: "bigram", db)
        try await insert(SearchTokenizer.listedWords(inIndexText: tokens.all), into: "keyword_words", column: "word", db)
    }

    /// Inserts `values` into `column`, the primary key of `table`, in order, keeping those already there.
    private static func insert(_ values: Set<String>, into table: String, column: String, _ db: any SQLExecutor) async throws {
        guard !values.isEmpty else { return }
        try await db.execute("""
            INSERT INTO \(raw: table) (\(raw: column)) SELECT value FROM \(db.dialect.list(values.sorted())) v WHERE true ORDER BY value
            ON CONFLICT (\(raw: column)) DO NOTHING
            """)
    }

    /// `keyword` narrowed by the vocabulary (``SearchQuery/narrowing(toBigramsIn:words:)``), in one statement: its
    /// typos to those whose bigrams the index holds, its words to those the index holds when they are few. Nil when it
    /// has nothing to look up (no term tolerates a typo or is a listed word's prefix, or it is narrowed already).
    static func narrowing(_ keyword: SearchQuery, _ db: any SQLExecutor) async throws -> SearchQuery? {
        let (bigrams, prefixes) = (keyword.typoBigrams, keyword.expandablePrefixes)
        guard !bigrams.isEmpty || !prefixes.isEmpty else { return nil }
        var reads: [SQLStatement] = bigrams.isEmpty ? [] : [
            "SELECT 0 AS kind, bigram AS value FROM keyword_bigrams WHERE bigram IN \(db.dialect.list(bigrams))",
        ]
        // One more word than a prefix may name tells that it starts too many. Listed words are ASCII letters and
        // digits, all before `~`, and the column compares bytes.
        reads += prefixes.map { prefix in
            """
            SELECT 1 AS kind, w.word AS value FROM (SELECT word FROM keyword_words WHERE word >= \(prefix) AND word < \(prefix + "~")
                ORDER BY word LIMIT \(SearchQuery.expandedPrefixWords + 1)) w
            """
        }
        var (present, words) = (Set<String>(), Set<String>())
        for row in try await db.rows(reads.joined(with: " UNION ALL ")) {
            let value: String = try row["value"]
            if try row["kind"] as Int == 0 { present.insert(value) } else { words.insert(value) }
        }
        return keyword.narrowing(toBigramsIn: present, words: words)
    }
}
