-- Account recovery by mail: verified addresses, the language of a user's mails, single-use account tokens and the
-- mail outbox.
--
-- `users.email_verified_at`: when the user followed a link mailed to the address (or a provider vouched for it);
-- NULL while it is unverified. `users.locale`: `ko` or `en`, the language of the user's mails.
--
-- `account_tokens`: one row per password-reset, email-verification or email-change token, stored only as the SHA-256
-- of the token. `email` is the address the token was mailed to (the new one for a change); `stamp` is a digest of the
-- account's password hash and address when it was issued: a token works only while they are unchanged, once
-- (`used_at`), before `expires_at`.
--
-- `mail_outbox`: one row per mail, written in the same transaction as its cause (the token it carries). The delivery
-- service claims due rows under a lease (`available_at` moves one lease ahead, so a node that dies while sending
-- delays the mail instead of losing it) and deletes each once the server accepted it or it was given up. A row holds
-- the rendered message (with its link) only until then.
ALTER TABLE users ADD COLUMN email_verified_at INTEGER;
ALTER TABLE users ADD COLUMN locale TEXT NOT NULL DEFAULT 'ko' CHECK (locale IN ('ko', 'en'));

CREATE TABLE account_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('password_reset', 'email_verification', 'email_change')),
    email      TEXT NOT NULL,
    stamp      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
) STRICT;

CREATE INDEX account_tokens_by_user ON account_tokens(user_id, purpose);
CREATE INDEX account_tokens_by_expiry ON account_tokens(expires_at);

CREATE TABLE mail_outbox (
    id           TEXT PRIMARY KEY,
    user_id      TEXT REFERENCES users(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    recipient    TEXT NOT NULL,
    subject      TEXT NOT NULL,
    text_body    TEXT NOT NULL,
    html_body    TEXT NOT NULL,
    link         TEXT,
    message_id   TEXT NOT NULL,
    queued_at    INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    available_at INTEGER NOT NULL
) STRICT;

CREATE INDEX mail_outbox_by_due ON mail_outbox(available_at, id);
CREATE INDEX mail_outbox_by_user ON mail_outbox(user_id);
