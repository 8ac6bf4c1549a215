-- A circle or map search that names a district (`keywordLocation`) reads the district's listings cell by cell: the
-- nearest-first walk counts a cell's listings of the district, and reads them, on `(keyword_location, geohash)`. On the
-- geohash index alone the walk counted every listing of a cell, whatever its district, and split and read the cells
-- of a city for the few of one district among them: on 1,000,000 classes, `keywordLocation=관악구` within 5 km of
-- Seoul's city hall ended its first page empty after 140 ms, its budget spent on other districts' listings.
CREATE INDEX classes_by_district_cell ON classes(keyword_location, geohash);
