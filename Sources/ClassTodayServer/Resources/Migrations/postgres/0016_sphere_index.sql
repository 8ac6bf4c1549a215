-- The nearest-first index of migration 0015 is rebuilt over an expression of built-in functions only.
--
-- `classes_by_earth` indexed `ll_to_earth(lat, lon)`, an SQL function of `earthdistance` whose body names `earth()`
-- and the `earth` type without a schema. PostgreSQL inlines such a body wherever it evaluates the index's expression,
-- under the search path of the moment, and autovacuum runs with `pg_catalog` alone: every automatic ANALYZE of
-- `classes` failed ("type "earth" does not exist"), so the table's statistics were never gathered but by hand, and the
-- planner chose its plans blind (a page's listings, by id, were read by scanning every listing: 0.3-0.7 s on 20,000).
--
-- `classes_by_sphere` indexes the listing's point on the unit sphere, `cube(ARRAY[x, y, z])`: `cube` (a C function of
-- the `cube` extension), `cos`, `sin` and `radians` are stored by their identity, not looked up by name, so any search
-- path evaluates it. The straight-line distance between two such points ascends with their great-circle distance, as
-- before; `TSVectorClassIndex.nearestOrder` writes the same expression. `cube` refuses an array holding NULL, so the
-- index holds only the listings with a place, as a search's conditions say. Building it took 54 s for a million
-- listings on a two-core machine, during which writes to `classes` wait.
CREATE INDEX IF NOT EXISTS classes_by_sphere ON classes USING gist (
    cube(ARRAY[cos(radians(lat)) * cos(radians(lon)), cos(radians(lat)) * sin(radians(lon)), sin(radians(lat))])
) WHERE deleted_at IS NULL AND lat IS NOT NULL;
DROP INDEX IF EXISTS classes_by_earth;
