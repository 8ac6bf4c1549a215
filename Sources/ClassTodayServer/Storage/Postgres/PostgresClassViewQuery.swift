import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// The one SELECT that reads listings as a viewer sees them on PostgreSQL: the class, its writer, its images and
/// whether the viewer saved it, all in a single statement (no query per class). The port of ``ClassViewQuery``.
package enum PostgresClassViewQuery {
    /// The columns of a listing row, its writer's summary, the viewer's favourite flag and the image ids in order;
    /// `viewer` is the placeholder of the viewer's id.
    private static func columns(viewer: String) -> String {
        """
        c.id, c.type, c.name, c.description, c.days, c.time, c.place, c.lat, c.lon, c.keyword_location, c.price,
        c.price_unit, c.subjects, c.targets, c.capacity, c.status, c.writer_id, c.favorite_count, c.created_at,
        c.updated_at, u.nickname AS writer_nickname, u.profile_image_id AS writer_image_id,
        u.rating_sum AS writer_rating_sum, u.rating_count AS writer_rating_count,
        EXISTS(SELECT 1 FROM favorites vf WHERE vf.class_id = c.id AND vf.user_id = \(viewer)::text) AS is_favorite,
        ARRAY(SELECT ci.image_id FROM class_images ci WHERE ci.class_id = c.id ORDER BY ci.position) AS image_ids
        """
    }

    /// The rows of listings matching `condition` (whose placeholders are bound in `binds`), not deleted, in
    /// `orderBy` order, at most `limit` of them.
    static func fetchRows(
        _ connection: PostgresConnection, logger: Logger, viewerId: String?, join: String = "", extraColumns: String = "",
        where condition: String, orderBy: String, limit: Int, binds: PostgresRows.Binds
    ) async throws -> [PostgresRandomAccessRow] {
        var binds = binds
        let viewer = binds.bind(viewerId)
        let limit = binds.bind(limit)
        let query = binds.query("""
            SELECT \(columns(viewer: viewer))\(extraColumns) FROM classes c JOIN users u ON u.id = c.writer_id \(join)
            WHERE c.deleted_at IS NULL AND (\(condition))
            ORDER BY \(orderBy) LIMIT \(limit)
            """)
        return try await connection.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// The listings, not deleted, whose ids are in `ids` (in no particular order).
    package static func fetchAll(_ connection: PostgresConnection, logger: Logger, viewerId: String?, ids: [String]) async throws -> [ClassView] {
        guard !ids.isEmpty else { return [] }
        var binds = PostgresRows.Binds()
        let viewer = binds.bind(viewerId)
        let list = binds.bind(ids)
        let query = binds.query("""
            SELECT \(columns(viewer: viewer)) FROM classes c JOIN users u ON u.id = c.writer_id
            WHERE c.deleted_at IS NULL AND c.id = ANY(\(list))
            """)
        return try await connection.query(query, logger: logger).collect().map { try view(row: $0.makeRandomAccess()) }
    }

    /// The listing `id` as `viewerId` sees it; nil when it does not exist or was deleted.
    static func fetchOne(_ connection: PostgresConnection, logger: Logger, viewerId: String?, id: String) async throws -> ClassView? {
        try await fetchAll(connection, logger: logger, viewerId: viewerId, ids: [id]).first
    }

    /// A page from rows fetched with `limit + 1`: the extra row only says that there is a next page.
    static func page(
        _ rows: [PostgresRandomAccessRow], limit: Int, cursor: (PostgresRandomAccessRow, ClassView) throws -> PageCursor
    ) throws -> Page<ClassView> {
        let visible = Array(rows.prefix(limit))
        let views = try visible.map(view(row:))
        var next: String?
        if rows.count > limit, let last = visible.last, let lastView = views.last {
            next = try cursor(last, lastView).encoded
        }
        return Page(items: views, nextCursor: next)
    }

    /// Decodes one row of the SELECT.
    static func view(row: PostgresRandomAccessRow) throws -> ClassView {
        let listing = try listing(row: row)
        let writerId = listing.writerId
        let ratingCount = try row["writer_rating_count"].decode(Int.self)
        let ratingSum = try row["writer_rating_sum"].decode(Double.self)
        let writer = WriterSummary(
            id: writerId, nickname: try row["writer_nickname"].decode(String.self),
            profileImageId: try row["writer_image_id"].decode(String?.self),
            rating: Rating(average: ratingCount == 0 ? 0 : ratingSum / Double(ratingCount), count: ratingCount))
        return ClassView(listing: listing, writer: writer, isFavorite: try row["is_favorite"].decode(Bool.self))
    }

    /// Decodes the listing of a `classes` row read with an `image_ids` array (its images in order).
    static func listing(row: PostgresRandomAccessRow) throws -> ClassListing {
        ClassListing(
            id: try row["id"].decode(String.self), type: ClassType(rawValue: try row["type"].decode(String.self)) ?? .sell,
            name: try row["name"].decode(String.self), description: try row["description"].decode(String.self),
            days: StoredList.decode(try row["days"].decode(String.self)), time: try row["time"].decode(String?.self),
            place: try row["place"].decode(String?.self), location: try PostgresRows.location(row),
            keywordLocation: try row["keyword_location"].decode(String?.self), price: try row["price"].decode(Int?.self),
            priceUnit: PriceUnit(rawValue: try row["price_unit"].decode(String.self)) ?? .perHour,
            subjects: StoredList.decode(try row["subjects"].decode(String.self)),
            targets: StoredList.decode(try row["targets"].decode(String.self)),
            capacity: try row["capacity"].decode(Int.self),
            status: ClassStatus(rawValue: try row["status"].decode(String.self)) ?? .closed,
            imageIds: try row["image_ids"].decode([String].self), writerId: try row["writer_id"].decode(String.self),
            favoriteCount: try row["favorite_count"].decode(Int.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row["updated_at"].decode(Int64.self)))
    }

    /// The haversine distance in meters between two points given as SQL expressions (columns or placeholders of
    /// `double precision` values), NULL when a coordinate is NULL.
    ///
    /// The same operations in the same order as ``Haversine/distance(_:_:)`` (radius
    /// ``Haversine/earthRadiusMeters``), evaluated in IEEE double precision with the C library's `sin`, `cos`,
    /// `atan2` and `sqrt`, so that SQL and Swift agree to within floating point (in practice bit for bit).
    package static func haversineSQL(lat1: String, lon1: String, lat2: String, lon2: String) -> String {
        func radians(_ degrees: String) -> String { "((\(degrees)) * pi() / 180::float8)" }
        let phi1 = radians(lat1)
        let phi2 = radians(lat2)
        let halfDeltaLat = "((\(phi2) - \(phi1)) / 2::float8)"
        let halfDeltaLon = "(\(radians("(\(lon2)) - (\(lon1))")) / 2::float8)"
        let halfLatSum = "((\(phi1) + \(phi2)) / 2::float8)"
        let (sinLat, cosLat) = ("sin(\(halfDeltaLat))", "cos(\(halfDeltaLat))")
        let (sinLon, cosLon) = ("sin(\(halfDeltaLon))", "cos(\(halfDeltaLon))")
        let sinSum = "sin(\(halfLatSum))"
        let haversine = "\(sinLat) * \(sinLat) + cos(\(phi1)) * cos(\(phi2)) * \(sinLon) * \(sinLon)"
        let complement = "\(cosLat) * \(cosLat) * \(cosLon) * \(cosLon) + \(sinSum) * \(sinSum) * \(sinLon) * \(sinLon)"
        return "(2::float8 * atan2(sqrt(greatest(0::float8, \(haversine))), sqrt(greatest(0::float8, \(complement))))"
            + " * \(Haversine.earthRadiusMeters)::float8)"
    }
}
