-- How many listings hold a keyword token, as a search weighs its tsquery by (`TSVectorClassIndex.counts`): a keyword
-- whose candidates are confirmed anyway leaves out the tokens over four times as common as the rarest beside it.
-- PostgreSQL's statistics of `classes.search` hold its most common lexemes and their shares of ANALYZE's sample; at
-- the default target they stop at about 2.5 % of the listings (cells and single syllables fill the list), which tells
-- `수학` (7.7 %) from `공업` (0.9 %) no better than from any other. At 1,000, ANALYZE samples 300,000 listings and keeps
-- 10,000 lexemes, down to about 0.09 %: 3.9 seconds for a million listings, here and whenever autovacuum analyzes.

ALTER TABLE classes ALTER COLUMN search SET STATISTICS 1000;
ANALYZE classes;
