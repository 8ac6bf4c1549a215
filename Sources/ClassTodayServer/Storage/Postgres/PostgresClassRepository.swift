import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Class listings and favourites stored in PostgreSQL: the port of ``SQLiteClassRepository``, with the same
/// errors, ordering, cursors and results. Keyword tokens live in `classes.search` (a tsvector of the exact
/// ``ClassSearchDocument/tokens(name:description:)`` lexemes) instead of a separate FTS table.
public struct PostgresClassRepository: ClassRepository {
    private let client: PostgresClient
    private let logger: Logger

    /// Creates the repository over an open store.
    public init(store: PostgresStore) {
        self.client = store.client
        self.logger = Logger(label: "classtoday.postgres.classes")
    }

    public func create(_ listing: ClassListing) async throws -> ClassView {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            try await checkImages(listing.imageIds, ownedBy: listing.writerId, connection)
            try await insertRow(listing, connection)
            try await replaceImages(of: listing.id, with: listing.imageIds, connection)
            try await connection.query(PostgresDatabase.query(AlertOutbox.enqueue(classId: listing.id, at: listing.createdAt)), logger: logger)
            return try await fetchView(id: listing.id, viewerId: listing.writerId, connection)
        }
    }

    /// Inserts a listing's row with its keyword tokens (not its images), inside the caller's transaction.
    package func insertRow(_ listing: ClassListing, _ connection: PostgresConnection) async throws {
        let values = ColumnValues(listing)
        try await connection.query("""
            INSERT INTO classes (id, type, name, description, days, days_mask, time, place, lat, lon, geohash,
                keyword_location, price, price_unit, subjects, subjects_mask, targets, targets_mask, capacity,
                status, writer_id, favorite_count, search, created_at, updated_at)
            VALUES (\(listing.id), \(values.type), \(listing.name), \(listing.description), \(values.days), \(values.daysMask),
                \(listing.time), \(listing.place), \(listing.location?.lat), \(listing.location?.lon), \(values.geohash),
                \(listing.keywordLocation), \(listing.price), \(values.priceUnit), \(values.subjects), \(values.subjectsMask),
                \(values.targets), \(values.targetsMask), \(listing.capacity), \(listing.status.rawValue), \(listing.writerId), 0,
                array_to_tsvector(array_remove(string_to_array(\(values.tokens), ' '), '')),
                \(listing.createdAt.millisecondsSince1970), \(listing.updatedAt.millisecondsSince1970))
            """, logger: logger)
    }

    public func view(id: String, viewerId: String?) async throws -> ClassView? {
        try await client.withConnection { connection in
            try await PostgresClassViewQuery.fetchOne(connection, logger: logger, viewerId: viewerId, id: id)
        }
    }

    public func update(id: String, by userId: String, _ change: @Sendable (inout ClassListing) throws -> Void) async throws -> ClassView {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            try await lockRow(id: id, connection)
            var listing = try await fetchView(id: id, viewerId: userId, connection).listing
            try ClassRules.checkWriter(of: listing, is: userId, to: "change")
            let before = listing
            try change(&listing)
            if listing.imageIds != before.imageIds {
                try await checkImages(listing.imageIds.filter { !before.imageIds.contains($0) }, ownedBy: userId, connection)
                try await replaceImages(of: id, with: listing.imageIds, connection)
            }
            let values = ColumnValues(listing)
            try await connection.query("""
                UPDATE classes SET type = \(values.type), name = \(listing.name), description = \(listing.description),
                    days = \(values.days), days_mask = \(values.daysMask), time = \(listing.time), place = \(listing.place),
                    lat = \(listing.location?.lat), lon = \(listing.location?.lon), geohash = \(values.geohash),
                    keyword_location = \(listing.keywordLocation), price = \(listing.price), price_unit = \(values.priceUnit),
                    subjects = \(values.subjects), subjects_mask = \(values.subjectsMask), targets = \(values.targets),
                    targets_mask = \(values.targetsMask), capacity = \(listing.capacity), status = \(listing.status.rawValue),
                    updated_at = \(Date().millisecondsSince1970)
                WHERE id = \(id)
                """, logger: logger)
            if listing.name != before.name || listing.description != before.description {
                // Each token becomes one exact lexeme (no parser or dictionary); empty pieces are dropped.
                try await connection.query("""
                    UPDATE classes SET search = array_to_tsvector(array_remove(string_to_array(\(values.tokens), ' '), ''))
                    WHERE id = \(id)
                    """, logger: logger)
            }
            if listing.status == .open, before.status != .open {
                try await connection.query(PostgresDatabase.query(AlertOutbox.enqueue(classId: id, at: Date())), logger: logger)
            }
            return try await fetchView(id: id, viewerId: userId, connection)
        }
    }

    public func delete(id: String, by userId: String) async throws {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            try await lockRow(id: id, connection)
            let listing = try await fetchView(id: id, viewerId: userId, connection).listing
            try ClassRules.checkWriter(of: listing, is: userId, to: "delete")
            let now = Date().millisecondsSince1970
            // The row stays (closed, marked deleted) so that chat rooms and matches keep their class summary.
            try await connection.query("""
                UPDATE classes SET deleted_at = \(now), updated_at = \(now), status = 'closed', favorite_count = 0,
                    search = ''::tsvector
                WHERE id = \(id)
                """, logger: logger)
            try await connection.query("DELETE FROM favorites WHERE class_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM class_images WHERE class_id = \(id)", logger: logger)
        }
    }

    public func search(_ search: ClassSearch, viewerId: String?, page: PageRequest) async throws -> Page<ClassView> {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            // Every statement of the search reads one snapshot, as SQLite's read transaction does.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            return try await PostgresClassSearch(search: search, page: page, viewerId: viewerId, logger: logger).run(connection)
        }
    }

    public func setFavorite(classId: String, userId: String, _ isFavorite: Bool) async throws {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            // The row lock orders this change after a concurrent deletion (which clears favourites).
            let exists = try await connection.query(
                "SELECT 1 FROM classes WHERE id = \(classId) AND deleted_at IS NULL FOR NO KEY UPDATE", logger: logger
            ).collect().isEmpty == false
            guard exists else { throw DomainError.notFound("class") }
            let changed: Int
            if isFavorite {
                changed = try await connection.query("""
                    INSERT INTO favorites (user_id, class_id, created_at) VALUES (\(userId), \(classId), \(Date().millisecondsSince1970))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger).collect().count
            } else {
                changed = try await connection.query(
                    "DELETE FROM favorites WHERE user_id = \(userId) AND class_id = \(classId) RETURNING 1", logger: logger
                ).collect().count
            }
            if changed > 0 {
                try await connection.query(
                    "UPDATE classes SET favorite_count = favorite_count + \(isFavorite ? 1 : -1) WHERE id = \(classId)", logger: logger)
            }
        }
    }

    public func favorites(of userId: String, page: PageRequest) async throws -> Page<ClassView> {
        try await client.withConnection { connection in
            var binds = PostgresRows.Binds()
            let owner = binds.bind(userId)
            let condition = binds.newestFirst(after: page.after, key: "fav.created_at", id: "c.id") ?? "true"
            let rows = try await PostgresClassViewQuery.fetchRows(
                connection, logger: logger, viewerId: userId,
                join: "JOIN favorites fav ON fav.class_id = c.id AND fav.user_id = \(owner)",
                extraColumns: ", fav.created_at AS saved_at",
                where: condition, orderBy: "fav.created_at DESC, c.id DESC", limit: page.limit + 1, binds: binds)
            return try PostgresClassViewQuery.page(rows, limit: page.limit) { row, view in
                PageCursor(ordering: "favorites", values: [.int(try row["saved_at"].decode(Int64.self)), .string(view.listing.id)])
            }
        }
    }

    public func classes(writtenBy writerId: String, viewerId: String?, page: PageRequest) async throws -> Page<ClassView> {
        try await client.withConnection { connection in
            var binds = PostgresRows.Binds()
            var condition = "c.writer_id = \(binds.bind(writerId))"
            if let after = binds.newestFirst(after: page.after, key: "c.created_at", id: "c.id") {
                condition += " AND " + after
            }
            let rows = try await PostgresClassViewQuery.fetchRows(
                connection, logger: logger, viewerId: viewerId, where: condition, orderBy: "c.created_at DESC, c.id DESC",
                limit: page.limit + 1, binds: binds)
            return try PostgresClassViewQuery.page(rows, limit: page.limit) { _, view in
                PageCursor(ordering: "recent", values: [.int(view.listing.createdAt.millisecondsSince1970), .string(view.listing.id)])
            }
        }
    }

    /// The stored forms of a listing's list, enum and location fields.
    private struct ColumnValues {
        let type: String
        let days: String
        let daysMask: Int64
        let geohash: String?
        let priceUnit: String
        let subjects: String
        let subjectsMask: Int64
        let targets: String
        let targetsMask: Int64
        /// The keyword tokens of name and description, space-separated.
        let tokens: String

        init(_ listing: ClassListing) {
            type = listing.type.rawValue
            days = StoredList.encode(listing.days)
            daysMask = BitMask.of(listing.days)
            geohash = listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
            priceUnit = listing.priceUnit.rawValue
            subjects = StoredList.encode(listing.subjects)
            subjectsMask = BitMask.of(listing.subjects)
            targets = StoredList.encode(listing.targets)
            targetsMask = BitMask.of(listing.targets)
            tokens = ClassSearchDocument.tokens(name: listing.name, description: listing.description)
        }
    }

    /// Locks the class row for the rest of the transaction (a missing row is reported by the read that follows).
    private func lockRow(id: String, _ connection: PostgresConnection) async throws {
        try await connection.query("SELECT 1 FROM classes WHERE id = \(id) FOR UPDATE", logger: logger)
    }

    private func fetchView(id: String, viewerId: String?, _ connection: PostgresConnection) async throws -> ClassView {
        guard let view = try await PostgresClassViewQuery.fetchOne(connection, logger: logger, viewerId: viewerId, id: id) else {
            throw DomainError.notFound("class")
        }
        return view
    }

    /// Throws a validation error on `imageIds` unless every image exists and was uploaded by `userId`.
    private func checkImages(_ imageIds: [String], ownedBy userId: String, _ connection: PostgresConnection) async throws {
        guard !imageIds.isEmpty else { return }
        var owned: Set<String> = []
        let rows = try await connection.query(
            "SELECT id FROM images WHERE uploader_id = \(userId) AND id = ANY(\(imageIds))", logger: logger)
        for try await id in rows.decode(String.self) {
            owned.insert(id)
        }
        let foreign = imageIds.filter { !owned.contains($0) }
        if !foreign.isEmpty {
            throw DomainError.invalid("imageIds", "must be images you uploaded; unknown: \(foreign.joined(separator: ", "))")
        }
    }

    private func replaceImages(of classId: String, with imageIds: [String], _ connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM class_images WHERE class_id = \(classId)", logger: logger)
        guard !imageIds.isEmpty else { return }
        try await connection.query("""
            INSERT INTO class_images (class_id, position, image_id)
            SELECT \(classId), image.position - 1, image.id FROM unnest(\(imageIds)::text[]) WITH ORDINALITY AS image(id, position)
            """, logger: logger)
    }
}
