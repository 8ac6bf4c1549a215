-- Alerts (saved searches), the geohash cells their circles cover, and the notifications they produce.

CREATE TABLE alerts (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    lat        REAL NOT NULL,
    lon        REAL NOT NULL,
    radius     REAL NOT NULL,
    query      TEXT,
    type       TEXT,
    subjects   TEXT,
    targets    TEXT,
    days       TEXT,
    -- The lists again as bit masks (0: no filter), so that matching runs in SQL.
    subjects_mask INTEGER NOT NULL DEFAULT 0,
    targets_mask  INTEGER NOT NULL DEFAULT 0,
    days_mask     INTEGER NOT NULL DEFAULT 0,
    max_price  INTEGER,
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX alerts_by_user ON alerts(user_id, created_at DESC, id DESC);

-- One row per (cell, alert): a new class looks up the alerts of its own cell (and the coarser cells that
-- contain it) instead of reading every alert.
CREATE TABLE alert_cells (
    cell     TEXT NOT NULL,
    alert_id TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    PRIMARY KEY (cell, alert_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX alert_cells_by_alert ON alert_cells(alert_id);

CREATE TABLE notifications (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    alert_id   TEXT REFERENCES alerts(id) ON DELETE SET NULL,
    class_id   TEXT REFERENCES classes(id),
    created_at INTEGER NOT NULL,
    read       INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX notifications_by_user ON notifications(user_id, created_at DESC, id DESC);
