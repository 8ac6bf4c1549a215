/// The SELECT of chat room summaries, the same SQL on SQLite and PostgreSQL: rooms with their class, both
/// members' summaries and the last message, in the columns the repositories' `summary(row:)` decoders read.
enum ChatRoomSummaryQuery {
    /// The `chat_rooms` rows of every room the user bound at `user` (a placeholder, such as `:user` or `$1`) is a
    /// member of: one index lookup per role.
    static func memberRooms(user: String) -> String {
        "SELECT * FROM chat_rooms WHERE seller_id = \(user) UNION ALL SELECT * FROM chat_rooms WHERE buyer_id = \(user)"
    }

    /// The summaries of the rooms that the subquery `rooms` selects (its rows are `chat_rooms` rows, aliased `r`).
    static func select(rooms: String) -> String {
        """
        SELECT r.*, c.name AS class_name, c.type AS class_type, c.status AS class_status,
            s.nickname AS s_nickname, s.profile_image_id AS s_image, s.rating_sum AS s_sum, s.rating_count AS s_count,
            b.nickname AS b_nickname, b.profile_image_id AS b_image, b.rating_sum AS b_sum, b.rating_count AS b_count,
            m.id AS m_id, m.seq AS m_seq, m.sender_id AS m_sender_id, m.kind AS m_kind, m.text AS m_text,
            m.image_id AS m_image_id, m.client_id AS m_client_id, m.sent_at AS m_sent_at
        FROM (\(rooms)) r
        JOIN classes c ON c.id = r.class_id
        JOIN users s ON s.id = r.seller_id
        JOIN users b ON b.id = r.buyer_id
        LEFT JOIN chat_messages m ON m.room_id = r.id AND m.seq = r.last_seq
        """
    }
}
