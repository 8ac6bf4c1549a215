import ClassTodayCore

/// The Hangul bigrams of the listings' keyword tokens (table `keyword_bigrams`), on either backend. A typo-tolerant
/// keyword looks up the bigrams its typos may form (``SearchQuery/typoBigrams``) and leaves out of its index query the
/// typos none of whose bigrams are all found (``SearchQuery/narrowingTypos(toBigramsIn:)``): no listing holds them.
///
/// Bigrams are added as listings are indexed, in the same transaction, and never removed: the table holds every
/// bigram of the index, and some that no listing holds any more, which only widen a query.
enum KeywordBigrams {
    /// Adds the bigrams of a listing's tokens, inside the caller's transaction. They are inserted in order, so that
    /// two transactions adding the same new bigrams wait for each other in the same order.
    static func record(_ tokens: ClassSearchDocument.Tokens, _ db: any SQLExecutor) async throws {
        let bigrams = SearchTokenizer.syllableBigrams(inIndexText: tokens.all).sorted()
        guard !bigrams.isEmpty else { return }
        try await db.execute("""
            INSERT INTO keyword_bigrams (bigram) SELECT value FROM \(db.dialect.list(bigrams)) b WHERE true ORDER BY value
            ON CONFLICT (bigram) DO NOTHING
            """)
    }

    /// `keyword` with its typo-tolerant terms narrowed to the typos whose bigrams the index holds; nil when it has no
    /// typo to look up (no term tolerates one, or they are narrowed already).
    static func narrowing(_ keyword: SearchQuery, _ db: any SQLExecutor) async throws -> SearchQuery? {
        let candidates = keyword.typoBigrams
        guard !candidates.isEmpty else { return nil }
        let rows = try await db.rows("SELECT bigram FROM keyword_bigrams WHERE bigram IN \(db.dialect.list(candidates))")
        return keyword.narrowingTypos(toBigramsIn: Set(try rows.map { try $0["bigram"] }))
    }
}
