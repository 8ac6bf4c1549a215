-- The outbox of stored image bytes to remove: one row per content hash that no image record names any more, written
-- in the same transaction that removed its last record (or collected it as garbage). The bytes (an object store's
-- objects, the disk's files) are removed after that commit, each hash in its own transaction that takes the hash's
-- lock and checks again that no record names it (an upload of the same bytes may have come in between: then the row
-- just goes). A failed removal stays queued: `attempts` counts the failures, `next_attempt_at` (milliseconds) is when
-- it is tried again, with a growing delay, and `last_error` says why; a row is never given up.
CREATE TABLE image_removals (
    sha256 TEXT PRIMARY KEY,
    queued_at BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    last_error TEXT
);

CREATE INDEX image_removals_due ON image_removals (next_attempt_at);
