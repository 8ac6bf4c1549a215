-- The Hangul bigrams of the listings' keyword tokens, each once (`KeywordBigrams`). A typo-tolerant keyword
-- (`공업수학`, which also finds `공업수핛`) looks up the bigrams its typos may form and leaves out of its index query the
-- typos no listing can hold: `없는말`, where no listing holds a pair like `없느` or `는맘`, then needs `없는` and `는말`
-- instead of `는말`, or `없` and `말` anywhere, or `없는`. Listings add their bigrams as they are indexed and none are
-- removed, so the table holds every bigram of the index and some no listing holds any more.
--
-- Filled here from the index's own vocabulary (`fts5vocab`): about 30 seconds for a million listings.

CREATE TABLE keyword_bigrams (
    bigram TEXT PRIMARY KEY
) WITHOUT ROWID, STRICT;

CREATE VIRTUAL TABLE temp.class_search_terms USING fts5vocab(main, class_search, row);

INSERT INTO keyword_bigrams (bigram)
SELECT term FROM temp.class_search_terms
WHERE length(term) = 2 AND unicode(term) BETWEEN 44032 AND 55203 AND unicode(substr(term, 2)) BETWEEN 44032 AND 55203;

DROP TABLE temp.class_search_terms;
