-- Relevance order (a hit in the name before a hit in the description, newest first within each; see
-- `SearchQuery.RelevanceTier`): `name_search` holds the tokens of the name alone, beside `search` (name and
-- description), under its own GIN index. Listings stored before it are indexed by the background upgrade to
-- `SearchTokenizer.indexVersion` 3, from the start; until it reaches one, its name hits rank with the description hits.
ALTER TABLE classes ADD COLUMN name_search tsvector NOT NULL DEFAULT ''::tsvector;

CREATE INDEX classes_by_name_search ON classes USING gin (name_search);

UPDATE search_index_state SET reindexed_through = '' WHERE version < 3;
