-- Accounts: users and their bearer-token sessions.
-- Dates are INTEGER milliseconds since 1970-01-01 UTC.

CREATE TABLE users (
    id               TEXT PRIMARY KEY,
    email            TEXT NOT NULL,
    email_normalized TEXT NOT NULL UNIQUE,
    password_hash    TEXT NOT NULL,
    nickname         TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    company          TEXT NOT NULL DEFAULT '',
    subjects         TEXT NOT NULL DEFAULT '[]',
    profile_image_id TEXT,
    lat              REAL,
    lon              REAL,
    keyword_location TEXT,
    detail_location  TEXT,
    rating_sum       REAL NOT NULL DEFAULT 0,
    rating_count     INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    CHECK ((lat IS NULL) = (lon IS NULL))
) STRICT;

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;

CREATE INDEX sessions_by_user ON sessions(user_id);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);
