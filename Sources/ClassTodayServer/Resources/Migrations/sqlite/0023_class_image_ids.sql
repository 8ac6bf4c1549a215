-- Each listing's image ids, in order, as a JSON array beside the listing (`image_ids`), kept with `class_images` in the
-- transactions that change them: a page of listings reads them as a column instead of aggregating `class_images` once
-- per listing. `class_images` stays the source that references images and keeps an image in use from being collected.

ALTER TABLE classes ADD COLUMN image_ids TEXT NOT NULL DEFAULT '[]';

UPDATE classes SET image_ids = (
    SELECT json_group_array(image_id) FROM (SELECT image_id FROM class_images ci WHERE ci.class_id = classes.id ORDER BY position)
)
WHERE id IN (SELECT class_id FROM class_images);
