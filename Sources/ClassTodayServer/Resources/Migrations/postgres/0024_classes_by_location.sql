-- Listings laid out by location. A radius page reads its listings nearest first from the sphere index, each from its
-- row in the table; rows stored in the order they were written lie scattered over the table, one page each. Marked
-- here, `CLUSTER classes` (`classtoday cluster`, or `clusterdb`) rewrites the table in the order of the listings'
-- geohashes, and a page's neighbours then share a few table pages.
--
-- Each page of the table keeps a tenth free, so that an update that changes no indexed column (a favourite counted,
-- a status changed) writes the row's new version on its own page (a heap-only tuple) and leaves it among its
-- neighbours. The setting applies to pages written from now on, and to every page once the table is clustered.
ALTER TABLE classes SET (fillfactor = 90);
ALTER TABLE classes CLUSTER ON classes_by_geohash;
