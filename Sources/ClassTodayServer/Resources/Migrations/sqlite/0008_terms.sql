-- Terms of service: the version each user accepted last and when (milliseconds since 1970). NULL for accounts
-- created before terms were recorded: GET /v1/me reports them as not up to date.

ALTER TABLE users ADD COLUMN terms_version TEXT;
ALTER TABLE users ADD COLUMN terms_accepted_at INTEGER;
