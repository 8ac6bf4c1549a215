-- Reports, moderation and its audit log (issue 15); see Migrations/sqlite/0010_moderation.sql.

ALTER TABLE users ADD COLUMN is_operator boolean NOT NULL DEFAULT false,
    ADD COLUMN suspended_at bigint, ADD COLUMN suspended_until bigint,
    ADD COLUMN warning_count bigint NOT NULL DEFAULT 0, ADD COLUMN last_warning_reason text, ADD COLUMN last_warned_at bigint;

CREATE INDEX users_suspended ON users(id) WHERE suspended_at IS NOT NULL;

ALTER TABLE classes ADD COLUMN hidden_at bigint;
ALTER TABLE chat_messages ADD COLUMN removed_at bigint;

CREATE TABLE reports (
    id                 text PRIMARY KEY,
    reporter_id        text NOT NULL REFERENCES users(id),
    target_type        text NOT NULL CHECK (target_type IN ('class', 'user', 'message')),
    target_id          text NOT NULL,
    target_user_id     text NOT NULL REFERENCES users(id),
    reason             text NOT NULL,
    detail             text,
    status             text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'dismissed', 'actioned')),
    evidence_room_id   text,
    evidence_seq       bigint,
    evidence_sender_id text,
    evidence_kind      text,
    evidence_text      text,
    evidence_image_id  text,
    evidence_sent_at   bigint,
    created_at         bigint NOT NULL,
    resolved_at        bigint,
    resolved_by        text REFERENCES users(id),
    resolution         text
);

CREATE UNIQUE INDEX reports_one_open ON reports(reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_by_target ON reports(target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_queue ON reports(status, created_at, id COLLATE "C");

CREATE TABLE moderation_audit (
    id               text PRIMARY KEY,
    operator_id      text REFERENCES users(id),
    action           text NOT NULL,
    target_type      text NOT NULL,
    target_id        text NOT NULL,
    reason           text NOT NULL,
    until            bigint,
    report_id        text REFERENCES reports(id),
    resolved_reports bigint NOT NULL DEFAULT 0,
    created_at       bigint NOT NULL
);

CREATE INDEX moderation_audit_by_recent ON moderation_audit(created_at DESC, id DESC);
CREATE INDEX moderation_audit_by_target ON moderation_audit(target_type, target_id);
