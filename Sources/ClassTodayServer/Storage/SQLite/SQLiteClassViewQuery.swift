import ClassTodayCore
import Foundation
import GRDB

/// The one SELECT that reads listings as a viewer sees them: the class, its writer, its images and whether the
/// viewer saved it, all in a single statement (no query per class).
package enum SQLiteClassViewQuery {
    private static let columns = """
        c.*, u.nickname AS writer_nickname, u.profile_image_id AS writer_image_id,
        u.rating_sum AS writer_rating_sum, u.rating_count AS writer_rating_count,
        EXISTS(SELECT 1 FROM favorites vf WHERE vf.class_id = c.id AND vf.user_id = :viewer) AS is_favorite,
        (SELECT json_group_array(image_id) FROM (SELECT image_id FROM class_images ci WHERE ci.class_id = c.id ORDER BY position)) AS image_ids
        """

    /// The rows of listings matching `condition` (which may use `:viewer`), not deleted, in `orderBy` order.
    static func fetchRows(
        _ db: Database, viewerId: String?, join: String = "", extraColumns: String = "",
        where condition: String, orderBy: String, limit: Int, arguments: StatementArguments
    ) throws -> [Row] {
        var arguments = arguments
        _ = arguments.append(contentsOf: ["viewer": viewerId])
        return try Row.fetchAll(db, sql: """
            SELECT \(columns)\(extraColumns) FROM classes c JOIN users u ON u.id = c.writer_id \(join)
            WHERE c.deleted_at IS NULL AND (\(condition))
            ORDER BY \(orderBy) LIMIT \(limit)
            """, arguments: arguments)
    }

    /// The listings matching `condition` with positional `arguments` (no `:viewer` inside the condition). The
    /// statement is prepared once per connection and condition, so `condition` must be a fixed text.
    package static func fetchAll(_ db: Database, viewerId: String?, where condition: String, arguments: [any DatabaseValueConvertible]) throws -> [ClassView] {
        let statement = try db.cachedStatement(sql: """
            SELECT \(columns.replacingOccurrences(of: ":viewer", with: "?")) FROM classes c JOIN users u ON u.id = c.writer_id
            WHERE c.deleted_at IS NULL AND (\(condition))
            """)
        return try Row.fetchAll(statement, arguments: StatementArguments([viewerId] + arguments.map { $0 as (any DatabaseValueConvertible)? }))
            .map(view(row:))
    }

    /// A page from rows fetched with `limit + 1`: the extra row only says that there is a next page.
    static func page(_ rows: [Row], limit: Int, cursor: (Row, ClassView) -> PageCursor) -> Page<ClassView> {
        let visible = rows.prefix(limit)
        let views = visible.map(view(row:))
        let next = rows.count > limit ? visible.last.map { cursor($0, view(row: $0)).encoded } : nil
        return Page(items: views, nextCursor: next)
    }

    /// Decodes one row of the SELECT.
    static func view(row: Row) -> ClassView {
        let lat: Double? = row["lat"]
        let lon: Double? = row["lon"]
        let listing = ClassListing(
            id: row["id"], type: ClassType(rawValue: row["type"]) ?? .sell, name: row["name"],
            description: row["description"], days: StoredList.decode(row["days"]), time: row["time"],
            place: row["place"], location: lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } },
            keywordLocation: row["keyword_location"], price: row["price"],
            priceUnit: PriceUnit(rawValue: row["price_unit"]) ?? .perHour,
            subjects: StoredList.decode(row["subjects"]), targets: StoredList.decode(row["targets"]),
            capacity: row["capacity"], status: ClassStatus(rawValue: row["status"]) ?? .closed,
            imageIds: StoredList.decodeStrings(row["image_ids"]), writerId: row["writer_id"],
            favoriteCount: row["favorite_count"], createdAt: Date(millisecondsSince1970: row["created_at"]),
            updatedAt: Date(millisecondsSince1970: row["updated_at"]))
        let ratingCount: Int = row["writer_rating_count"]
        let ratingSum: Double = row["writer_rating_sum"]
        let writer = WriterSummary(
            id: row["writer_id"], nickname: row["writer_nickname"], profileImageId: row["writer_image_id"],
            rating: Rating(average: ratingCount == 0 ? 0 : ratingSum / Double(ratingCount), count: ratingCount))
        return ClassView(listing: listing, writer: writer, isFavorite: row["is_favorite"])
    }
}
