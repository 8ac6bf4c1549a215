-- Chat: one room per (class, visitor), messages numbered 1, 2, 3, ... in each room with no gaps.

CREATE TABLE chat_rooms (
    id               TEXT PRIMARY KEY,
    class_id         TEXT NOT NULL REFERENCES classes(id),
    visitor_id       TEXT NOT NULL REFERENCES users(id),
    seller_id        TEXT NOT NULL REFERENCES users(id),
    buyer_id         TEXT NOT NULL REFERENCES users(id),
    created_at       INTEGER NOT NULL,
    last_seq         INTEGER NOT NULL DEFAULT 0,
    last_activity_at INTEGER NOT NULL,
    seller_read_seq  INTEGER NOT NULL DEFAULT 0,
    buyer_read_seq   INTEGER NOT NULL DEFAULT 0,
    UNIQUE (class_id, visitor_id)
) STRICT;

CREATE INDEX chat_rooms_by_seller ON chat_rooms(seller_id, last_activity_at DESC, id DESC);
CREATE INDEX chat_rooms_by_buyer ON chat_rooms(buyer_id, last_activity_at DESC, id DESC);

CREATE TABLE chat_messages (
    id        TEXT PRIMARY KEY,
    room_id   TEXT NOT NULL REFERENCES chat_rooms(id),
    seq       INTEGER NOT NULL,
    sender_id TEXT NOT NULL REFERENCES users(id),
    kind      TEXT NOT NULL CHECK (kind IN ('text', 'image', 'system')),
    text      TEXT,
    image_id  TEXT,
    client_id TEXT,
    sent_at   INTEGER NOT NULL,
    UNIQUE (room_id, seq)
) STRICT;

-- Idempotent sends: one message per (room, sender, client id).
CREATE UNIQUE INDEX chat_messages_by_client_id ON chat_messages(room_id, sender_id, client_id) WHERE client_id IS NOT NULL;
-- Images referenced by messages are kept by the image garbage collector.
CREATE INDEX chat_messages_by_image ON chat_messages(image_id) WHERE image_id IS NOT NULL;
