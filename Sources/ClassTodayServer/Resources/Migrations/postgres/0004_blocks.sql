-- Blocks: a row means `blocker_id` blocked `blocked_id`. A block works in both directions (neither sees the
-- other's listings, neither can message the other), so reads look a pair up both ways: by the primary key, and by
-- `blocks_by_blocked` for the other direction. A deleted user's blocks go with them.

CREATE TABLE blocks (
    blocker_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    blocked_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id)
);

CREATE INDEX blocks_by_blocked ON blocks(blocked_id, blocker_id);
CREATE INDEX blocks_by_recent ON blocks(blocker_id, created_at DESC, blocked_id DESC);
