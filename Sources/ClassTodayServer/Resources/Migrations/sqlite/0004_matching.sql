-- Matches agreed in chat rooms, and the reviews members write once a match is completed.

CREATE TABLE matches (
    id          TEXT PRIMARY KEY,
    room_id     TEXT NOT NULL REFERENCES chat_rooms(id),
    class_id    TEXT NOT NULL REFERENCES classes(id),
    seller_id   TEXT NOT NULL REFERENCES users(id),
    buyer_id    TEXT NOT NULL REFERENCES users(id),
    status      TEXT NOT NULL CHECK (status IN ('proposed', 'accepted', 'declined', 'cancelled', 'completed')),
    proposed_by TEXT NOT NULL REFERENCES users(id),
    days        TEXT,
    time        TEXT,
    place       TEXT,
    lat         REAL,
    lon         REAL,
    price       INTEGER,
    price_unit  TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX matches_by_seller ON matches(seller_id, created_at DESC, id DESC);
CREATE INDEX matches_by_buyer ON matches(buyer_id, created_at DESC, id DESC);
CREATE INDEX matches_by_room ON matches(room_id);

CREATE TABLE reviews (
    id          TEXT PRIMARY KEY,
    match_id    TEXT NOT NULL REFERENCES matches(id),
    reviewer_id TEXT NOT NULL REFERENCES users(id),
    reviewee_id TEXT NOT NULL REFERENCES users(id),
    grade       REAL NOT NULL CHECK (grade >= 0.5 AND grade <= 5.0),
    description TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    UNIQUE (match_id, reviewer_id)
) STRICT;

CREATE INDEX reviews_by_reviewee ON reviews(reviewee_id, created_at DESC, id DESC);
