-- The whole schema for PostgreSQL, mirroring Migrations/sqlite/0001-0006: the same tables, columns and meanings,
-- so that both backends pass one repository contract suite. Times are milliseconds since 1970 (bigint); lists
-- are JSON text with bit masks beside them for SQL filtering, as in SQLite.

CREATE TABLE users (
    id               text PRIMARY KEY,
    email            text NOT NULL,
    email_normalized text NOT NULL UNIQUE,
    password_hash    text NOT NULL,
    nickname         text NOT NULL,
    description      text NOT NULL DEFAULT '',
    company          text NOT NULL DEFAULT '',
    subjects         text NOT NULL DEFAULT '[]',
    profile_image_id text,
    lat              double precision,
    lon              double precision,
    keyword_location text,
    detail_location  text,
    rating_sum       double precision NOT NULL DEFAULT 0,
    rating_count     bigint NOT NULL DEFAULT 0,
    created_at       bigint NOT NULL,
    updated_at       bigint NOT NULL,
    CHECK ((lat IS NULL) = (lon IS NULL))
);

CREATE TABLE sessions (
    token_hash text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);

CREATE INDEX sessions_by_user ON sessions(user_id);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);

CREATE TABLE images (
    id          text PRIMARY KEY,
    sha256      text NOT NULL,
    format      text NOT NULL,
    bytes       bigint NOT NULL,
    width       bigint NOT NULL,
    height      bigint NOT NULL,
    uploader_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  bigint NOT NULL
);

CREATE INDEX images_by_sha256 ON images(sha256);
CREATE INDEX images_by_created ON images(created_at);

-- Keyword search: `search` holds the SearchTokenizer tokens of name and description as exact lexemes
-- (array_to_tsvector, no parser or dictionary in between) and is queried with `search @@ $1::tsquery`, the
-- query built by SearchQuery.tsQuery; a GIN index serves it. Geohash ranges use the B-tree classes_by_geohash.
CREATE TABLE classes (
    id               text PRIMARY KEY,
    type             text NOT NULL CHECK (type IN ('buy', 'sell')),
    name             text NOT NULL,
    description      text NOT NULL DEFAULT '',
    days             text NOT NULL DEFAULT '[]',
    days_mask        bigint NOT NULL DEFAULT 0,
    time             text,
    place            text,
    lat              double precision,
    lon              double precision,
    geohash          text COLLATE "C",
    keyword_location text,
    price            bigint CHECK (price IS NULL OR price >= 0),
    price_unit       text NOT NULL,
    subjects         text NOT NULL DEFAULT '[]',
    subjects_mask    bigint NOT NULL DEFAULT 0,
    targets          text NOT NULL DEFAULT '[]',
    targets_mask     bigint NOT NULL DEFAULT 0,
    capacity         bigint NOT NULL DEFAULT 1 CHECK (capacity >= 1),
    seats_taken      bigint NOT NULL DEFAULT 0,
    status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'matched', 'closed')),
    writer_id        text NOT NULL REFERENCES users(id),
    favorite_count   bigint NOT NULL DEFAULT 0,
    search           tsvector NOT NULL DEFAULT ''::tsvector,
    created_at       bigint NOT NULL,
    updated_at       bigint NOT NULL,
    deleted_at       bigint,
    CHECK ((lat IS NULL) = (lon IS NULL))
);

CREATE INDEX classes_by_writer ON classes(writer_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_recent ON classes(created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_geohash ON classes(geohash);
CREATE INDEX classes_by_district ON classes(keyword_location, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX classes_by_search ON classes USING gin (search);

CREATE TABLE class_images (
    class_id text NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    position bigint NOT NULL,
    image_id text NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    PRIMARY KEY (class_id, position)
);

CREATE INDEX class_images_by_image ON class_images(image_id);

CREATE TABLE favorites (
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    class_id   text NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    PRIMARY KEY (user_id, class_id)
);

CREATE INDEX favorites_by_recent ON favorites(user_id, created_at DESC, class_id DESC);
CREATE INDEX favorites_by_class ON favorites(class_id);

-- Chat: seq is allocated by incrementing chat_rooms.last_seq under the room row's lock (UPDATE ... RETURNING),
-- so writers on different nodes get gap-free, unique seqs; UNIQUE (room_id, seq) is the last line of defence.
CREATE TABLE chat_rooms (
    id               text PRIMARY KEY,
    class_id         text NOT NULL REFERENCES classes(id),
    visitor_id       text NOT NULL REFERENCES users(id),
    seller_id        text NOT NULL REFERENCES users(id),
    buyer_id         text NOT NULL REFERENCES users(id),
    created_at       bigint NOT NULL,
    last_seq         bigint NOT NULL DEFAULT 0,
    last_activity_at bigint NOT NULL,
    seller_read_seq  bigint NOT NULL DEFAULT 0,
    buyer_read_seq   bigint NOT NULL DEFAULT 0,
    UNIQUE (class_id, visitor_id)
);

CREATE INDEX chat_rooms_by_seller ON chat_rooms(seller_id, last_activity_at DESC, id DESC);
CREATE INDEX chat_rooms_by_buyer ON chat_rooms(buyer_id, last_activity_at DESC, id DESC);

CREATE TABLE chat_messages (
    id        text PRIMARY KEY,
    room_id   text NOT NULL REFERENCES chat_rooms(id),
    seq       bigint NOT NULL,
    sender_id text NOT NULL REFERENCES users(id),
    kind      text NOT NULL CHECK (kind IN ('text', 'image', 'system')),
    text      text,
    image_id  text,
    client_id text,
    sent_at   bigint NOT NULL,
    UNIQUE (room_id, seq)
);

CREATE UNIQUE INDEX chat_messages_by_client_id ON chat_messages(room_id, sender_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX chat_messages_by_image ON chat_messages(image_id) WHERE image_id IS NOT NULL;

CREATE TABLE matches (
    id          text PRIMARY KEY,
    room_id     text NOT NULL REFERENCES chat_rooms(id),
    class_id    text NOT NULL REFERENCES classes(id),
    seller_id   text NOT NULL REFERENCES users(id),
    buyer_id    text NOT NULL REFERENCES users(id),
    status      text NOT NULL CHECK (status IN ('proposed', 'accepted', 'declined', 'cancelled', 'completed')),
    proposed_by text NOT NULL REFERENCES users(id),
    days        text,
    time        text,
    place       text,
    lat         double precision,
    lon         double precision,
    price       bigint,
    price_unit  text,
    created_at  bigint NOT NULL,
    updated_at  bigint NOT NULL
);

CREATE INDEX matches_by_seller ON matches(seller_id, created_at DESC, id DESC);
CREATE INDEX matches_by_buyer ON matches(buyer_id, created_at DESC, id DESC);
CREATE INDEX matches_by_room ON matches(room_id);

CREATE TABLE reviews (
    id          text PRIMARY KEY,
    match_id    text NOT NULL REFERENCES matches(id),
    reviewer_id text NOT NULL REFERENCES users(id),
    reviewee_id text NOT NULL REFERENCES users(id),
    grade       double precision NOT NULL CHECK (grade >= 0.5 AND grade <= 5.0),
    description text NOT NULL DEFAULT '',
    created_at  bigint NOT NULL,
    UNIQUE (match_id, reviewer_id)
);

CREATE INDEX reviews_by_reviewee ON reviews(reviewee_id, created_at DESC, id DESC);

CREATE TABLE alerts (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    lat           double precision NOT NULL,
    lon           double precision NOT NULL,
    radius        double precision NOT NULL,
    query         text,
    type          text,
    subjects      text,
    targets       text,
    days          text,
    subjects_mask bigint NOT NULL DEFAULT 0,
    targets_mask  bigint NOT NULL DEFAULT 0,
    days_mask     bigint NOT NULL DEFAULT 0,
    max_price     bigint,
    created_at    bigint NOT NULL
);

CREATE INDEX alerts_by_user ON alerts(user_id, created_at DESC, id DESC);

-- One row per (cell, alert) carrying every field matching reads (see Migrations/sqlite/0006).
CREATE TABLE alert_index (
    cell          text COLLATE "C" NOT NULL,
    alert_id      text NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    user_id       text NOT NULL,
    lat           double precision NOT NULL,
    lon           double precision NOT NULL,
    radius        double precision NOT NULL,
    query         text,
    type          text,
    subjects_mask bigint NOT NULL,
    targets_mask  bigint NOT NULL,
    days_mask     bigint NOT NULL,
    max_price     bigint,
    PRIMARY KEY (cell, alert_id)
);

CREATE INDEX alert_index_by_alert ON alert_index(alert_id);

CREATE TABLE notifications (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       text NOT NULL,
    alert_id   text REFERENCES alerts(id) ON DELETE SET NULL,
    class_id   text REFERENCES classes(id),
    created_at bigint NOT NULL,
    read       boolean NOT NULL DEFAULT false
);

CREATE INDEX notifications_by_user ON notifications(user_id, created_at DESC, id DESC);

-- The alert fan-out outbox (see Migrations/sqlite/0006); nodes claim rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE alert_outbox (
    class_id  text PRIMARY KEY REFERENCES classes(id),
    queued_at bigint NOT NULL
);

-- Chat presence over all nodes: open connections per (user, node). Each node refreshes seen_at of its rows
-- while it runs; rows of a node that stopped without cleaning up are ignored once stale and then removed.
CREATE TABLE chat_presence (
    user_id     text NOT NULL,
    node_id     text NOT NULL,
    connections bigint NOT NULL,
    seen_at     bigint NOT NULL,
    PRIMARY KEY (user_id, node_id)
);

CREATE INDEX chat_presence_by_node ON chat_presence(node_id);
