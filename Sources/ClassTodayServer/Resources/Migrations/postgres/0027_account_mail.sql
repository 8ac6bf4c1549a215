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
ALTER TABLE users ADD COLUMN email_verified_at bigint;
ALTER TABLE users ADD COLUMN locale text NOT NULL DEFAULT 'ko' CHECK (locale IN ('ko', 'en'));

CREATE TABLE account_tokens (
    token_hash text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose    text NOT NULL CHECK (purpose IN ('password_reset', 'email_verification', 'email_change')),
    email      text NOT NULL,
    stamp      text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at    bigint
);

CREATE INDEX account_tokens_by_user ON account_tokens(user_id, purpose);
CREATE INDEX account_tokens_by_expiry ON account_tokens(expires_at);

CREATE TABLE mail_outbox (
    id           text PRIMARY KEY,
    user_id      text REFERENCES users(id) ON DELETE CASCADE,
    kind         text NOT NULL,
    recipient    text NOT NULL,
    subject      text NOT NULL,
    text_body    text NOT NULL,
    html_body    text NOT NULL,
    link         text,
    message_id   text NOT NULL,
    queued_at    bigint NOT NULL,
    attempts     bigint NOT NULL DEFAULT 0,
    available_at bigint NOT NULL
);

CREATE INDEX mail_outbox_by_due ON mail_outbox(available_at, id);
CREATE INDEX mail_outbox_by_user ON mail_outbox(user_id);
