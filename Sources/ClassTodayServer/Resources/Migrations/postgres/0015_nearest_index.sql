-- A search by distance without a keyword reads its page nearest first from one GiST index instead of walking geohash
-- cells one statement each (`TSVectorClassIndex.nearestOrder`): `ll_to_earth(lat, lon)` places a listing in 3-D space
-- on a sphere (`earthdistance`, over `cube`: contrib extensions that PostgreSQL 13 and later let a database owner
-- create), the straight-line distance `<->` between two such points ascends with their great-circle distance, and the
-- index yields the listings nearest a point first. Building it takes about 25 s per million listings, during which
-- writes to `classes` wait.
CREATE EXTENSION IF NOT EXISTS cube;
CREATE EXTENSION IF NOT EXISTS earthdistance;
CREATE INDEX IF NOT EXISTS classes_by_earth ON classes USING gist (ll_to_earth(lat, lon)) WHERE deleted_at IS NULL;
