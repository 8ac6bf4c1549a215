-- Account deletion: the user's row stays as an anonymous tombstone (messages, matches, reviews and reports point at
-- it); deleted_at marks it, and nothing personal is left in it.
ALTER TABLE users ADD COLUMN deleted_at bigint;
