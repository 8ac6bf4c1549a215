-- A relevance read wants the newest listings holding a keyword, and a GIN index yields its hits in no order. With
-- `created_at` beside the tokens in the same GIN index (`btree_gin`, a contrib extension that PostgreSQL 13 and later
-- let a database owner create), the hits among the newest listings are one index scan:
-- `search @@ q AND created_at >= T` (`TSVectorClassIndex.newest`), whatever the keyword's frequency.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX classes_by_search;
CREATE INDEX classes_by_search ON classes USING gin (search, created_at);
DROP INDEX classes_by_name_search;
CREATE INDEX classes_by_name_search ON classes USING gin (name_search, created_at);
