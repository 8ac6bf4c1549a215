-- The Hangul bigrams of the listings' keyword tokens, each once (`KeywordBigrams`). A typo-tolerant keyword
-- (`공업수학`, which also finds `공업수핛`) looks up the bigrams its typos may form and leaves out of its tsquery the
-- typos no listing can hold: `없는말`, where no listing holds a pair like `없느` or `는맘`, then needs `없는` and `는말`
-- instead of `는말`, or `없` and `말` anywhere, or `없는`. Listings add their bigrams as they are indexed and none are
-- removed, so the table holds every bigram of the index and some no listing holds any more.
--
-- Filled here from the listings' lexemes (`ts_stat` reads every `search` vector once): about 40 seconds for a million.

CREATE TABLE keyword_bigrams (
    bigram TEXT PRIMARY KEY
);

INSERT INTO keyword_bigrams (bigram)
SELECT word FROM ts_stat('SELECT search FROM classes') WHERE word ~ '^[가-힣]{2}$';
