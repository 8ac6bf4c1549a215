-- Class listings, their images, favourites, and the uploaded images themselves.
-- Lists of enum values are stored twice: as a JSON array (order kept) and as a bit mask (for "shares one of").

CREATE TABLE images (
    id          TEXT PRIMARY KEY,
    sha256      TEXT NOT NULL,
    format      TEXT NOT NULL,
    bytes       INTEGER NOT NULL,
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    uploader_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX images_by_sha256 ON images(sha256);
CREATE INDEX images_by_created ON images(created_at);

CREATE TABLE classes (
    id               TEXT PRIMARY KEY,
    type             TEXT NOT NULL CHECK (type IN ('buy', 'sell')),
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    days             TEXT NOT NULL DEFAULT '[]',
    days_mask        INTEGER NOT NULL DEFAULT 0,
    time             TEXT,
    place            TEXT,
    lat              REAL,
    lon              REAL,
    geohash          TEXT,
    keyword_location TEXT,
    price            INTEGER CHECK (price IS NULL OR price >= 0),
    price_unit       TEXT NOT NULL,
    subjects         TEXT NOT NULL DEFAULT '[]',
    subjects_mask    INTEGER NOT NULL DEFAULT 0,
    targets          TEXT NOT NULL DEFAULT '[]',
    targets_mask     INTEGER NOT NULL DEFAULT 0,
    capacity         INTEGER NOT NULL DEFAULT 1 CHECK (capacity >= 1),
    seats_taken      INTEGER NOT NULL DEFAULT 0,
    status           TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'matched', 'closed')),
    writer_id        TEXT NOT NULL REFERENCES users(id),
    favorite_count   INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    deleted_at       INTEGER,
    CHECK ((lat IS NULL) = (lon IS NULL))
) STRICT;

CREATE INDEX classes_by_writer ON classes(writer_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_recent ON classes(created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_geohash ON classes(geohash);
CREATE INDEX classes_by_district ON classes(keyword_location, created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE class_images (
    class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    image_id TEXT NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    PRIMARY KEY (class_id, position)
) STRICT, WITHOUT ROWID;

CREATE INDEX class_images_by_image ON class_images(image_id);

CREATE TABLE favorites (
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    class_id   TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, class_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX favorites_by_recent ON favorites(user_id, created_at DESC, class_id DESC);
CREATE INDEX favorites_by_class ON favorites(class_id);

-- Keyword search: one row per listing (rowid = classes.rowid) holding the search tokens of its name and
-- description (Hangul bigrams and unigrams, folded Latin words), kept in sync by the repository.
CREATE VIRTUAL TABLE class_search USING fts5(tokens, tokenize = "unicode61 remove_diacritics 0");
