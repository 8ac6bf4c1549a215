-- The listings' index words of ASCII letters and digits, each once (`KeywordVocabulary`). A keyword's word (`jl`)
-- looks up the words it starts and names them in the index query when they are few (`jlpt`), instead of a prefix
-- that the index reads by gathering every listing of every word it starts. Listings add their words as they are
-- indexed and none are removed, so the table holds every such word of the index and some no listing holds any more.
--
-- Filled here from the `tokens` column's vocabulary (`fts5vocab`), whose other tokens are Hangul or escaped (`qx`).

CREATE TABLE keyword_words (
    word TEXT PRIMARY KEY
) WITHOUT ROWID, STRICT;

CREATE VIRTUAL TABLE temp.class_search_columns USING fts5vocab(main, class_search, col);

INSERT INTO keyword_words (word)
SELECT DISTINCT term FROM temp.class_search_columns
WHERE col = 'tokens' AND term NOT GLOB '*[^a-z0-9]*' AND term NOT GLOB 'qx*';

DROP TABLE temp.class_search_columns;
