-- Sign-in providers and refresh tokens.
--
-- `identities`: a provider identity (Apple, Kakao, Google, Naver) linked to an account, keyed by (provider, subject),
-- never by email; one identity per provider per account. `email` is what the provider said when the identity was
-- linked (private to the user). An account created by a provider has no password: its `users.password_hash` is ''
-- (no bcrypt hash is empty, so password login fails for it) and its `users.email_normalized` is
-- 'identity:<provider>:<subject>' (no email address has that form, so it never takes an address from a signup).
--
-- `refresh_tokens`: the SHA-256 of each refresh token, in a family started by one sign-in (`family_id` is the hash
-- of the family's first refresh token). Refreshing marks the token used (`used_at`) and adds the next one; a used
-- token presented again revokes the family: its refresh tokens and the bearer tokens it issued (`sessions.family_id`).
--
-- `signed_in_at` (on both tables) is when the family's sign-in happened; a refresh copies it forward, so that a
-- refreshed bearer token does not count as a fresh sign-in (account deletion without a password asks for one).

CREATE TABLE identities (
    provider   text NOT NULL,
    subject    text NOT NULL,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email      text,
    created_at bigint NOT NULL,
    PRIMARY KEY (provider, subject)
);

CREATE UNIQUE INDEX identities_by_user ON identities(user_id, provider);

CREATE TABLE refresh_tokens (
    token_hash text PRIMARY KEY,
    family_id  text NOT NULL,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at    bigint,
    signed_in_at bigint NOT NULL
);

CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_by_user ON refresh_tokens(user_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens(expires_at);

ALTER TABLE sessions ADD COLUMN family_id text;
ALTER TABLE sessions ADD COLUMN signed_in_at bigint;
CREATE INDEX sessions_by_family ON sessions(family_id);
