-- A keyword within a district (`keywordLocation`) is one GIN intersection, as in SQLite's FTS5 `cells` column: both
-- `classes.search` and `classes.name_search` also hold the listing's district as one lexeme, `@@` and the district as
-- written (`TSVectorClassIndex.districtLexeme`), which no search token or cell lexeme starts with. Added here to every
-- stored listing; the repository writes it for new and changed listings.
UPDATE classes
SET search = search || array_to_tsvector(ARRAY['@@' || keyword_location]),
    name_search = name_search || array_to_tsvector(ARRAY['@@' || keyword_location])
WHERE keyword_location IS NOT NULL AND keyword_location <> '' AND deleted_at IS NULL;
