-- Reports, moderation and its audit log (issue 15). Times are milliseconds since 1970.
--
-- users: the operator role (granted by `classtoday admin grant EMAIL` only), a suspension (suspended_at set and
-- suspended_until NULL: for good; in force while suspended_until is in the future) and the warnings received.
-- classes.hidden_at: hidden from everyone but the writer. chat_messages.removed_at: text replaced, seq kept.

ALTER TABLE users ADD COLUMN is_operator INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN suspended_at INTEGER;
ALTER TABLE users ADD COLUMN suspended_until INTEGER;
ALTER TABLE users ADD COLUMN warning_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN last_warning_reason TEXT;
ALTER TABLE users ADD COLUMN last_warned_at INTEGER;

-- Searches leave out the listings of suspended writers: `writer_id NOT IN (suspended users)` reads this small index.
CREATE INDEX users_suspended ON users(id) WHERE suspended_at IS NOT NULL;

ALTER TABLE classes ADD COLUMN hidden_at INTEGER;
ALTER TABLE chat_messages ADD COLUMN removed_at INTEGER;

-- A report and, for a message, a copy of it as evidence (evidence_*). One open report per reporter and target.
CREATE TABLE reports (
    id                 TEXT PRIMARY KEY,
    reporter_id        TEXT NOT NULL REFERENCES users(id),
    target_type        TEXT NOT NULL CHECK (target_type IN ('class', 'user', 'message')),
    target_id          TEXT NOT NULL,
    target_user_id     TEXT NOT NULL REFERENCES users(id),
    reason             TEXT NOT NULL,
    detail             TEXT,
    status             TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'dismissed', 'actioned')),
    evidence_room_id   TEXT,
    evidence_seq       INTEGER,
    evidence_sender_id TEXT,
    evidence_kind      TEXT,
    evidence_text      TEXT,
    evidence_image_id  TEXT,
    evidence_sent_at   INTEGER,
    created_at         INTEGER NOT NULL,
    resolved_at        INTEGER,
    resolved_by        TEXT REFERENCES users(id),
    resolution         TEXT
) STRICT;

CREATE UNIQUE INDEX reports_one_open ON reports(reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_by_target ON reports(target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_queue ON reports(status, created_at, id);

-- Every moderation action: who (NULL: the system), what, on what, why, when.
CREATE TABLE moderation_audit (
    id               TEXT PRIMARY KEY,
    operator_id      TEXT REFERENCES users(id),
    action           TEXT NOT NULL,
    target_type      TEXT NOT NULL,
    target_id        TEXT NOT NULL,
    reason           TEXT NOT NULL,
    until            INTEGER,
    report_id        TEXT REFERENCES reports(id),
    resolved_reports INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL
) STRICT;

CREATE INDEX moderation_audit_by_recent ON moderation_audit(created_at DESC, id DESC);
CREATE INDEX moderation_audit_by_target ON moderation_audit(target_type, target_id);
