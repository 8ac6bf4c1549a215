-- Nearest-first circles read the listings' points from memory (`ClassPointIndex`): every listing that is neither
-- deleted nor hidden, with its position, status, type and writer. The index follows `classes` through this log,
-- which the triggers below fill in whichever process writes (the server, `classtoday seed`, `classtoday admin`): a
-- search first applies the changes after the last one its index holds, reading those listings' rows in its own
-- snapshot, so that its page is the one the SQL walk would read.
--
-- Each change names the listing only: the index finds the point it held by id, and the log keeps no position (an
-- account's deletion erases its listings' positions; the log must not keep them). It keeps the last 10,000 changes;
-- an index further behind reads every point again. `AUTOINCREMENT` keeps `seq` from ever going back.

CREATE TABLE class_point_changes (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    class_id TEXT NOT NULL
) STRICT;

CREATE TRIGGER class_point_changes_kept AFTER INSERT ON class_point_changes BEGIN
    DELETE FROM class_point_changes WHERE seq <= NEW.seq - 10000;
END;

CREATE TRIGGER classes_point_inserted AFTER INSERT ON classes BEGIN
    INSERT INTO class_point_changes (class_id) VALUES (NEW.id);
END;

CREATE TRIGGER classes_point_updated AFTER UPDATE OF lat, lon, status, type, writer_id, hidden_at, deleted_at ON classes
WHEN OLD.lat IS NOT NEW.lat OR OLD.lon IS NOT NEW.lon OR OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type
    OR OLD.writer_id IS NOT NEW.writer_id OR OLD.hidden_at IS NOT NEW.hidden_at OR OLD.deleted_at IS NOT NEW.deleted_at
BEGIN
    INSERT INTO class_point_changes (class_id) VALUES (OLD.id);
END;

CREATE TRIGGER classes_point_deleted AFTER DELETE ON classes BEGIN
    INSERT INTO class_point_changes (class_id) VALUES (OLD.id);
END;
