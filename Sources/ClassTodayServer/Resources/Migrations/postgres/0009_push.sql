-- Push notifications: devices, per-room mutes, the push outbox and the deliveries it expands into.
--
-- `devices`: one row per push token (a token belongs to one app install, so registering it for another user moves
-- it). `session_id` is the session family (or, for sessions without one, the bearer token hash) that registered the
-- device: signing out of that session removes the device.
--
-- `push_outbox`: one row per recipient, written in the same transaction as the chat message, match step or alert
-- notification that causes it (only for recipients with a device). The delivery service expands each row into
-- `push_deliveries`, one per device, in one transaction, leaving out recipients who are online, muted the room or
-- block the sender.
--
-- `push_deliveries`: `available_at` is when the row may next be claimed; claiming moves it one lease ahead, so a
-- node that dies while sending delays the push instead of losing it. A delivered row is deleted.

CREATE TABLE devices (
    token       text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    platform    text NOT NULL CHECK (platform IN ('ios', 'android')),
    app_version text,
    locale      text,
    session_id  text NOT NULL,
    created_at  bigint NOT NULL,
    updated_at  bigint NOT NULL
);

CREATE INDEX devices_by_user ON devices(user_id, updated_at DESC);
CREATE INDEX devices_by_session ON devices(session_id);

CREATE TABLE chat_room_mutes (
    room_id    text NOT NULL REFERENCES chat_rooms(id),
    user_id    text NOT NULL REFERENCES users(id),
    created_at bigint NOT NULL,
    PRIMARY KEY (user_id, room_id)
);

CREATE TABLE push_outbox (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('message', 'match', 'alert')),
    room_id    text,
    sender_id  text,
    message_id text,
    class_id   text,
    queued_at  bigint NOT NULL
);

CREATE INDEX push_outbox_by_age ON push_outbox(queued_at, id);
CREATE INDEX push_outbox_by_user ON push_outbox(user_id);

CREATE TABLE push_deliveries (
    id           text PRIMARY KEY,
    device_token text NOT NULL REFERENCES devices(token) ON DELETE CASCADE,
    user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    platform     text NOT NULL,
    content      text NOT NULL,
    queued_at    bigint NOT NULL,
    attempts     bigint NOT NULL DEFAULT 0,
    available_at bigint NOT NULL
);

CREATE INDEX push_deliveries_by_due ON push_deliveries(available_at, id);
CREATE INDEX push_deliveries_by_device ON push_deliveries(device_token);
CREATE INDEX push_deliveries_by_user ON push_deliveries(user_id);
