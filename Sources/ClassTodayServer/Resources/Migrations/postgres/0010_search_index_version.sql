-- The version of the keyword tokens stored in `classes.search` (`SearchTokenizer.indexVersion`). Version 2 adds the
-- initial-consonant bigrams (`수학` → `ᄉᄒ`); listings stored before it are re-indexed in the background, in batches,
-- after `reindexed_through` (the last class id done), and the version moves up when all are done. Old tokens are a
-- subset of the new ones, so searches stay correct meanwhile: only initial-consonant queries miss what is not done.
CREATE TABLE search_index_state (
    id                integer PRIMARY KEY CHECK (id = 1),
    version           integer NOT NULL,
    reindexed_through text NOT NULL
);

INSERT INTO search_index_state (id, version, reindexed_through) VALUES (1, 1, '');
