-- The listings' index words of ASCII letters and digits, each once (`KeywordVocabulary`). A keyword's word (`jl`)
-- looks up the words it starts and names them in the tsquery when they are few (`'jlpt'`), instead of a prefix
-- (`'jl':*`), which GIN reads by gathering every listing of every lexeme it starts before it intersects them: 2.1 ms
-- for `'jlpt':*` within a cell, 0.09 ms for `'jlpt'`. Listings add their words as they are indexed and none are
-- removed, so the table holds every such word of the index and some no listing holds any more.
--
-- The words compare as bytes, as a prefix's range of them is read. Filled here from the listings' lexemes (`ts_stat`
-- reads every `search` vector once), whose other lexemes are Hangul, escaped (`qx`) or cells and districts (`@`).

CREATE TABLE keyword_words (
    word TEXT COLLATE "C" PRIMARY KEY
);

INSERT INTO keyword_words (word)
SELECT word FROM ts_stat('SELECT search FROM classes') WHERE word !~ '[^a-z0-9]' AND word NOT LIKE 'qx%';
