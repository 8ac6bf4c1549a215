-- The alert cell index carries every field that matching reads, so that matching a new class reads a few
-- contiguous ranges of index rows (one per lookup key) and never looks an alert up by id. It replaces
-- alert_cells, which held only (cell, alert_id) and cost one alerts lookup per candidate.

CREATE TABLE alert_index (
    cell          TEXT NOT NULL,
    alert_id      TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    user_id       TEXT NOT NULL,
    lat           REAL NOT NULL,
    lon           REAL NOT NULL,
    radius        REAL NOT NULL,
    query         TEXT,
    type          TEXT,
    subjects_mask INTEGER NOT NULL,
    targets_mask  INTEGER NOT NULL,
    days_mask     INTEGER NOT NULL,
    max_price     INTEGER,
    PRIMARY KEY (cell, alert_id)
) STRICT, WITHOUT ROWID;

INSERT INTO alert_index (cell, alert_id, user_id, lat, lon, radius, query, type, subjects_mask, targets_mask, days_mask, max_price)
SELECT c.cell, a.id, a.user_id, a.lat, a.lon, a.radius, a.query, a.type, a.subjects_mask, a.targets_mask, a.days_mask, a.max_price
FROM alert_cells c JOIN alerts a ON a.id = c.alert_id;

CREATE INDEX alert_index_by_alert ON alert_index(alert_id);

DROP TABLE alert_cells;

-- Classes whose alert notifications are still to be produced: a transactional outbox. A row is written in the
-- transaction that creates or reopens the class and removed in the one that stores its notifications, so a
-- crash in between delays notifications but never loses them, and a class's writer never waits for the fan-out.
CREATE TABLE alert_outbox (
    class_id  TEXT PRIMARY KEY REFERENCES classes(id),
    queued_at INTEGER NOT NULL
) STRICT;
