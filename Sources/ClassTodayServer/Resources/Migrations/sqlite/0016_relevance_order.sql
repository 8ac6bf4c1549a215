-- Relevance order (a hit in the name before a hit in the description, newest first within each; see
-- `SearchQuery.RelevanceTier`) is read from the keyword index newest first, stopping once the page is full, instead of
-- scoring every hit. Two changes make that possible:
--
-- * A listing's rowid becomes `created_at << 10` plus its place among the listings created in the same millisecond
--   (`SQLClassRepository.insert` assigns new ones the same way), so that the index, walked by rowid descending, yields
--   listings newest first.
-- * `class_search` gets a `name` column, the tokens of the name alone, beside `tokens` (name and description) and
--   `cells`, which now also holds the district's token, so that keyword + district is one doclist intersection too.
--   It is rebuilt here with the server's own tokenizer (`ct_search_tokens`, `ct_search_cells`), so the stored tokens
--   are those of `SearchTokenizer.indexVersion` 3 and the background upgrade has nothing left to do.
--
-- A larger page cache for this transaction makes the rebuild of a million listings take about a minute.

PRAGMA cache_size = -262144;

CREATE TEMP TABLE class_rowids (old_rowid INTEGER PRIMARY KEY, new_rowid INTEGER NOT NULL);

INSERT INTO class_rowids
SELECT rowid, (created_at << 10) + ROW_NUMBER() OVER (PARTITION BY created_at ORDER BY id) - 1 FROM classes;

-- Rows whose old rowid could equal a new one step aside first (none but in a database of 1970's first second).
UPDATE classes SET rowid = -rowid WHERE rowid >= (SELECT MIN(new_rowid) FROM class_rowids);

-- Renumbering is four times faster without the secondary indexes, which are then rebuilt as they were.
DROP INDEX classes_by_writer;
DROP INDEX classes_by_recent;
DROP INDEX classes_by_geohash;
DROP INDEX classes_by_district;

UPDATE classes SET rowid = (SELECT new_rowid FROM class_rowids WHERE old_rowid = abs(classes.rowid));

CREATE INDEX classes_by_writer ON classes(writer_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_recent ON classes(created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_geohash ON classes(geohash);
CREATE INDEX classes_by_district ON classes(keyword_location, created_at DESC, id DESC) WHERE deleted_at IS NULL;

DROP TABLE temp.class_rowids;

CREATE VIRTUAL TABLE class_search_named USING fts5(name, tokens, cells, tokenize = "unicode61 remove_diacritics 0");

INSERT INTO class_search_named (rowid, name, tokens, cells)
SELECT rowid, ct_search_tokens(name, ''), ct_search_tokens(name, description), ct_search_cells(geohash, keyword_location)
FROM classes WHERE deleted_at IS NULL;

DROP TABLE class_search;

ALTER TABLE class_search_named RENAME TO class_search;

UPDATE search_index_state SET version = 3, reindexed_through = '';

PRAGMA cache_size = -2000;
