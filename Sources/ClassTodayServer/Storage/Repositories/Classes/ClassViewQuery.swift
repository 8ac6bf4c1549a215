import ClassTodayCore
import Foundation

/// The one SELECT that reads listings as a viewer sees them: the class, its writer, its images and whether the
/// viewer saved it, all in a single statement (no query per class).
package enum ClassViewQuery {
    /// The columns of `classes c` that ``ClassListing/init(row:)`` reads (not PostgreSQL's keyword `tsvector`).
    static let listingColumns = """
        c.id, c.type, c.name, c.description, c.days, c.time, c.place, c.lat, c.lon, c.keyword_location, c.price,
        c.price_unit, c.subjects, c.targets, c.capacity, c.status, c.writer_id, c.favorite_count, c.created_at, c.updated_at,
        c.hidden_at, c.image_ids
        """

    /// Listings not deleted that `condition` selects, as `viewerId` sees them (none of a writer who blocked them or
    /// whom they blocked), with `extraColumns` and `join`ed tables, in `order` (a fixed text), at most `limit` of them.
    /// Hidden listings and those of suspended writers are left out unless `viewerId` wrote them or `moderated` is
    /// false (operators). The listings come from `source`, named `c`: the `classes` table, or a statement selecting
    /// ``listingColumns`` and `deleted_at` from it.
    static func select(
        viewerId: String?, _ dialect: SQLDialect, from source: SQLStatement = "classes c", extraColumns: String = "",
        join: SQLStatement = "", where condition: SQLStatement, orderBy order: String? = nil, limit: Int? = nil,
        moderated: Bool = true
    ) -> SQLStatement {
        // A viewer signed out has saved nothing: no subquery per listing asks.
        let isFavorite: SQLStatement = if let viewerId {
            "EXISTS(SELECT 1 FROM favorites vf WHERE vf.class_id = c.id AND vf.user_id = \(viewerId))"
        } else {
            "0"
        }
        var statement: SQLStatement = """
            SELECT \(raw: listingColumns), u.nickname AS writer_nickname, u.profile_image_id AS writer_image_id,
                u.rating_sum AS writer_rating_sum, u.rating_count AS writer_rating_count, \(isFavorite) AS is_favorite\(raw: extraColumns)
            FROM \(source) JOIN users u ON u.id = c.writer_id \(join)
            WHERE c.deleted_at IS NULL AND (\(condition))
            """
        if let viewerId {
            // A block hides each user's listings from the other.
            statement.append(" AND NOT \(BlockSQL.between("\(viewerId)", "c.writer_id"))")
        }
        if moderated { statement.append(" AND (c.writer_id = \(viewerId) OR \(ClassModeration.visible(at: Date())))") }
        if let order { statement.append(raw: " ORDER BY \(order)") }
        if let limit { statement.append(" LIMIT \(limit)") }
        return statement
    }

    /// The listings, not deleted, whose ids are in `ids` (in no particular order), as `viewerId` sees them. Every
    /// search page ends with this statement, its text the same for any ids (a list bound as one value), so it is
    /// repeated (``SQLStatement/isRepeated``): planning it took longer than running it on PostgreSQL.
    package static func views(ids: [String], viewerId: String?, _ db: any SQLExecutor) async throws -> [ClassView] {
        guard !ids.isEmpty else { return [] }
        return try await views(where: "c.id IN \(db.dialect.list(ids))", viewerId: viewerId, db)
    }

    /// The listings, not deleted, whose SQLite rowids are in `rows` (in no particular order), as `viewerId` sees them:
    /// a walk over the listings' points knows their rowids, and each listing is then one probe of the table, where an
    /// id costs a probe of the ids' index first. Repeated, as ``views(ids:viewerId:_:)`` is.
    static func views(rows: [Int64], viewerId: String?, _ db: any SQLExecutor) async throws -> [ClassView] {
        guard !rows.isEmpty else { return [] }
        let json = "[" + rows.map(String.init).joined(separator: ",") + "]"
        return try await views(where: "c.rowid IN (SELECT value FROM json_each(\(json)))", viewerId: viewerId, db)
    }

    /// Which of the listings `ids` the user `viewerId` saved: none for a viewer signed out. Repeated, as
    /// ``views(ids:viewerId:_:)`` is.
    static func saved(_ ids: [String], by viewerId: String?, _ db: any SQLExecutor) async throws -> Set<String> {
        guard let viewerId, !ids.isEmpty else { return [] }
        var statement: SQLStatement = "SELECT class_id FROM favorites WHERE user_id = \(viewerId) AND class_id IN \(db.dialect.list(ids))"
        statement.isRepeated = true
        return Set(try await db.rows(statement).map { try $0["class_id"] as String })
    }

    /// The listings `condition` selects, as `viewerId` sees them, with a statement whose text is the same for any values
    /// bound in `condition` (``SQLStatement/isRepeated``).
    private static func views(where condition: SQLStatement, viewerId: String?, _ db: any SQLExecutor) async throws -> [ClassView] {
        var statement = select(viewerId: viewerId, db.dialect, where: condition)
        statement.isRepeated = true
        return try await db.rows(statement).map(ClassView.init(row:))
    }

    /// The listing `id` as `viewerId` sees it; nil when it does not exist or was deleted, or, when `moderated`, is
    /// hidden from the viewer.
    static func view(id: String, viewerId: String?, moderated: Bool = true, _ db: any SQLExecutor) async throws -> ClassView? {
        try await db.row(select(viewerId: viewerId, db.dialect, where: "c.id = \(id)", moderated: moderated)).map(ClassView.init(row:))
    }

    /// A page from rows fetched with `limit + 1`: the extra row only says that there is a next page.
    static func page(_ rows: [SQLRow], limit: Int, cursor: (SQLRow, ClassView) throws -> PageCursor) throws -> Page<ClassView> {
        let visible = Array(rows.prefix(limit))
        let views = try visible.map(ClassView.init(row:))
        var next: String?
        if rows.count > limit, let last = visible.last, let lastView = views.last {
            next = try cursor(last, lastView).encoded
        }
        return Page(items: views, nextCursor: next)
    }
}

extension ClassView {
    /// Decodes a row of ``ClassViewQuery/select(viewerId:_:from:extraColumns:join:where:orderBy:limit:moderated:)``.
    init(row: SQLRow) throws {
        var columns = SQLRowReader(row)
        let listing = try ClassListing(reading: &columns)
        let (nickname, imageId): (String, String?) = (try columns.read("writer_nickname"), try columns.read("writer_image_id"))
        let (ratingSum, ratingCount): (Double, Int) = (try columns.read("writer_rating_sum"), try columns.read("writer_rating_count"))
        let writer = WriterSummary(id: listing.writerId, nickname: nickname, profileImageId: imageId,
                                   rating: Rating(sum: ratingSum, count: ratingCount))
        self.init(listing: listing, writer: writer, isFavorite: try columns.read("is_favorite"))
    }
}
