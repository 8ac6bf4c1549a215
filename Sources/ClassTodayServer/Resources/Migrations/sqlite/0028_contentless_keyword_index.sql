-- The keyword index keeps no copy of the text it indexes. `class_search` stored its three columns of tokens
-- (`class_search_content`, 1.6 GB of a 3.7 GB file at a million listings) beside the index itself, and kept each
-- token's positions and each row's column sizes, which no query reads (every operand is one token or a prefix, column
-- filters are by column only, nothing is ranked by bm25). Its successor is contentless (`content=''`), keeps columns
-- but not positions (`detail=column`) and no column sizes (`columnsize=0`).
--
-- A contentless table forgets a row only when told the values it indexed: triggers on `classes` tell it, recomputing
-- them from the listing's own columns with the server's tokenizer (`ct_search_tokens`, `ct_search_cells`), so every
-- writer keeps the index (the server, `classtoday seed`, `classtoday admin`). Writing `classes` now needs those
-- functions: the `sqlite3` shell cannot change a listing's text.
--
-- The new table is filled in the background after start (`KeywordIndexBuild`), in batches of listings by rowid after
-- `built_through`, while searches read the old one; then one transaction drops the old one and renames the new one.
-- Until then the old table is kept by the triggers below (it holds its text, so a row is removed by rowid), and the
-- new one by triggers the build adds for the rows it has built. A database of few listings is built at migration.

CREATE VIRTUAL TABLE class_search_next USING fts5(
    name, tokens, cells, content = '', columnsize = 0, detail = column, tokenize = "unicode61 remove_diacritics 0"
);

CREATE TABLE keyword_index_build (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    built_through  INTEGER NOT NULL,
    built_listings INTEGER NOT NULL DEFAULT 0
) STRICT;

INSERT INTO keyword_index_build (id, built_through) VALUES (1, -9223372036854775808);

CREATE TRIGGER classes_keywords_previous_inserted AFTER INSERT ON classes WHEN NEW.deleted_at IS NULL BEGIN
    INSERT INTO class_search (rowid, name, tokens, cells)
    VALUES (NEW.rowid, ct_search_tokens(NEW.name, ''), ct_search_tokens(NEW.name, NEW.description),
            ct_search_cells(NEW.geohash, NEW.keyword_location));
END;

CREATE TRIGGER classes_keywords_previous_updated AFTER UPDATE OF name, description, geohash, keyword_location, deleted_at ON classes
WHEN OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.geohash IS NOT NEW.geohash
    OR OLD.keyword_location IS NOT NEW.keyword_location OR OLD.deleted_at IS NOT NEW.deleted_at
BEGIN
    DELETE FROM class_search WHERE rowid = OLD.rowid;
    INSERT INTO class_search (rowid, name, tokens, cells)
    SELECT NEW.rowid, ct_search_tokens(NEW.name, ''), ct_search_tokens(NEW.name, NEW.description),
           ct_search_cells(NEW.geohash, NEW.keyword_location)
    WHERE NEW.deleted_at IS NULL;
END;

CREATE TRIGGER classes_keywords_previous_deleted AFTER DELETE ON classes BEGIN
    DELETE FROM class_search WHERE rowid = OLD.rowid;
END;
