-- What caused each push delivery, copied from its `push_outbox` row when it is expanded: before every try (the first
-- and each retry) the delivery service decides again whether the push may go, as at expansion (the recipient offline,
-- the room not muted, no block between recipient and sender, the message not removed). A block made while a push
-- waits for its retry stops it. Rows expanded before this migration have no cause and are sent as they are.
ALTER TABLE push_deliveries ADD COLUMN kind text;
ALTER TABLE push_deliveries ADD COLUMN room_id text;
ALTER TABLE push_deliveries ADD COLUMN sender_id text;
ALTER TABLE push_deliveries ADD COLUMN message_id text;
ALTER TABLE push_deliveries ADD COLUMN class_id text;
