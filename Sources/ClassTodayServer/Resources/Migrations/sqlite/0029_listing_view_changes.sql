-- A page read from the listings' points keeps the listings it showed in memory (`ClassViewCache`), which moves with
-- the points along the log `class_point_changes` (migration 0018). The log now names every change to what a listing
-- shows: any of its columns a page reads (`ClassViewQuery.listingColumns`) or the points hold, and its writer's
-- nickname, picture and rating, which change each of the writer's listings.

DROP TRIGGER classes_point_updated;

CREATE TRIGGER classes_point_updated AFTER UPDATE ON classes
WHEN (OLD.type, OLD.name, OLD.description, OLD.days, OLD.time, OLD.place, OLD.lat, OLD.lon, OLD.keyword_location, OLD.price,
      OLD.price_unit, OLD.subjects, OLD.targets, OLD.capacity, OLD.status, OLD.writer_id, OLD.favorite_count, OLD.created_at,
      OLD.updated_at, OLD.hidden_at, OLD.deleted_at, OLD.image_ids, OLD.subjects_mask, OLD.targets_mask, OLD.days_mask)
    IS NOT (NEW.type, NEW.name, NEW.description, NEW.days, NEW.time, NEW.place, NEW.lat, NEW.lon, NEW.keyword_location, NEW.price,
      NEW.price_unit, NEW.subjects, NEW.targets, NEW.capacity, NEW.status, NEW.writer_id, NEW.favorite_count, NEW.created_at,
      NEW.updated_at, NEW.hidden_at, NEW.deleted_at, NEW.image_ids, NEW.subjects_mask, NEW.targets_mask, NEW.days_mask)
BEGIN
    INSERT INTO class_point_changes (class_id) VALUES (OLD.id);
END;

CREATE TRIGGER users_listings_writer_updated AFTER UPDATE OF nickname, profile_image_id, rating_sum, rating_count ON users
WHEN (OLD.nickname, OLD.profile_image_id, OLD.rating_sum, OLD.rating_count)
    IS NOT (NEW.nickname, NEW.profile_image_id, NEW.rating_sum, NEW.rating_count)
BEGIN
    INSERT INTO class_point_changes (class_id) SELECT id FROM classes WHERE writer_id = NEW.id AND deleted_at IS NULL;
END;
