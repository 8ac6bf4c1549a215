-- The listings' points in memory (`ClassPointIndex`, migration 0018) hold the columns a nearest-first circle filters
-- on besides its district: price and the subjects', targets' and days' masks too. A change to any of them is logged
-- as a change of the listing's point.

DROP TRIGGER classes_point_updated;

CREATE TRIGGER classes_point_updated
AFTER UPDATE OF lat, lon, status, type, writer_id, hidden_at, deleted_at, price, subjects_mask, targets_mask, days_mask ON classes
WHEN OLD.lat IS NOT NEW.lat OR OLD.lon IS NOT NEW.lon OR OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type
    OR OLD.writer_id IS NOT NEW.writer_id OR OLD.hidden_at IS NOT NEW.hidden_at OR OLD.deleted_at IS NOT NEW.deleted_at
    OR OLD.price IS NOT NEW.price OR OLD.subjects_mask IS NOT NEW.subjects_mask OR OLD.targets_mask IS NOT NEW.targets_mask
    OR OLD.days_mask IS NOT NEW.days_mask
BEGIN
    INSERT INTO class_point_changes (class_id) VALUES (OLD.id);
END;
