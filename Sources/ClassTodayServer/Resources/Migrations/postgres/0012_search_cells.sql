-- A keyword within a geohash cell is one GIN intersection, as in SQLite's FTS5 `cells` column: `classes.search` also
-- holds the listing's cells of 3 to 7 characters (156 km down to 150 m), each as `@` and the cell
-- (`TSVectorClassIndex.cellLexeme`), a character no search token holds. Added here to every stored listing, so that
-- nearest-first keyword searches find them all at once; the repository writes them for new and changed listings.
UPDATE classes
SET search = search || array_to_tsvector(ARRAY[
        '@' || substr(geohash, 1, 3), '@' || substr(geohash, 1, 4), '@' || substr(geohash, 1, 5),
        '@' || substr(geohash, 1, 6), '@' || substr(geohash, 1, 7)])
WHERE geohash IS NOT NULL AND deleted_at IS NULL;
