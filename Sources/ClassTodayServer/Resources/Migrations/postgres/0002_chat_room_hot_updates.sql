-- A chat room's row changes with every message: last_seq, last_activity_at and the read positions. While any
-- index holds one of those columns, each change writes a new row version plus an entry in every index of the
-- table, and the table bloats under a busy chat. Indexing the members alone, and leaving free space on each
-- page, lets PostgreSQL update the rows in place (heap-only tuple updates). A member's room list sorts their
-- rooms by activity after reading them through the member index.
DROP INDEX chat_rooms_by_seller;
DROP INDEX chat_rooms_by_buyer;
CREATE INDEX chat_rooms_by_seller ON chat_rooms(seller_id);
CREATE INDEX chat_rooms_by_buyer ON chat_rooms(buyer_id);
ALTER TABLE chat_rooms SET (fillfactor = 50);
