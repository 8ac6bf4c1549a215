-- Keyword search gets a second column, `cells`: the listing's geohash prefixes of 3 to 7 characters (156 km down
-- to 150 m cells). A keyword search within an area then asks FTS5 for `tokens : (...) AND cells : "<cell>"`, one
-- doclist intersection per cell, instead of checking the keyword row by row. Rebuilt from the existing tokens.

CREATE VIRTUAL TABLE class_search_cells USING fts5(tokens, cells, tokenize = "unicode61 remove_diacritics 0");

INSERT INTO class_search_cells (rowid, tokens, cells)
SELECT s.rowid, s.tokens,
       CASE WHEN c.geohash IS NULL THEN ''
            ELSE substr(c.geohash, 1, 3) || ' ' || substr(c.geohash, 1, 4) || ' ' || substr(c.geohash, 1, 5) || ' '
                 || substr(c.geohash, 1, 6) || ' ' || substr(c.geohash, 1, 7) END
FROM class_search s JOIN classes c ON c.rowid = s.rowid;

DROP TABLE class_search;

ALTER TABLE class_search_cells RENAME TO class_search;
