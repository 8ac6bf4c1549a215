-- Nearest-first circles read the listings' points from memory (`ClassPointIndex`), on every node: each listing that is
-- neither deleted nor hidden, with its position, status, type and writer. Each node's points follow `classes` through
-- this log, as SQLite's do (its migration 0018): a search first applies the changes after the last one its node's
-- points hold, reading those listings in its own snapshot, so that its page is the one the SQL walk would read.
--
-- A search trusts the log to hold, in its snapshot, every change up to the newest one it sees, numbered without a gap:
-- SQLite's one writer gives that; here, a change is numbered only as its transaction commits (a deferred constraint
-- trigger, which runs at commit), under a lock every such commit takes in turn. A transaction that rolls back numbers
-- nothing, and one that commits after another has the later numbers; PostgreSQL releases the lock only once the commit
-- is visible. Taken at commit, the lock waits for nothing but other commits' few inserts, so it deadlocks with no row
-- lock. Writers must run at READ COMMITTED (PostgreSQL's default and the server's): the number is the newest one plus
-- one, read after the lock is held.
--
-- Each change names the listing only: the points find the one they held by id, and the log keeps no position (an
-- account's deletion erases its listings' positions; the log must not keep them). It keeps the last 10,000 changes;
-- points further behind read every listing again.

CREATE TABLE class_point_changes (
    seq      bigint PRIMARY KEY,
    class_id text NOT NULL
);

CREATE FUNCTION class_point_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed bigint;
BEGIN
    -- "ctpt" in ASCII: the lock this log's writers take in turn, held until their transaction ends.
    PERFORM pg_catalog.pg_advisory_xact_lock(1668575348);
    INSERT INTO public.class_point_changes (seq, class_id)
    SELECT COALESCE(MAX(seq), 0) + 1, CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END FROM public.class_point_changes
    RETURNING seq INTO changed;
    DELETE FROM public.class_point_changes WHERE seq <= changed - 10000;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER classes_point_inserted AFTER INSERT ON classes
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION class_point_changed();

CREATE CONSTRAINT TRIGGER classes_point_updated AFTER UPDATE OF lat, lon, status, type, writer_id, hidden_at, deleted_at ON classes
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (OLD.lat IS DISTINCT FROM NEW.lat OR OLD.lon IS DISTINCT FROM NEW.lon OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.type IS DISTINCT FROM NEW.type OR OLD.writer_id IS DISTINCT FROM NEW.writer_id
    OR OLD.hidden_at IS DISTINCT FROM NEW.hidden_at OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
EXECUTE FUNCTION class_point_changed();

CREATE CONSTRAINT TRIGGER classes_point_deleted AFTER DELETE ON classes
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION class_point_changed();
