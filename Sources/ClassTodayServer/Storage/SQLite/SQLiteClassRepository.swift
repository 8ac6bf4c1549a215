import ClassTodayCore
import Foundation
import GRDB

/// Class listings and favourites stored in the embedded SQLite database.
public struct SQLiteClassRepository: ClassRepository {
    private let writer: DatabasePool

    /// Creates the repository over an open store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    public func create(_ listing: ClassListing) async throws -> ClassView {
        try await writer.write { db in
            try Self.checkImages(listing.imageIds, ownedBy: listing.writerId, db)
            try Self.insertRow(listing, db)
            try Self.replaceImages(of: listing.id, with: listing.imageIds, db)
            try db.execute(AlertOutbox.enqueue(classId: listing.id, at: listing.createdAt))
            return try Self.fetchView(id: listing.id, viewerId: listing.writerId, db)
        }
    }

    /// Inserts a listing's row and its keyword tokens (not its images), inside the caller's transaction.
    package static func insertRow(_ listing: ClassListing, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO classes (id, type, name, description, days, days_mask, time, place, lat, lon, geohash,
                keyword_location, price, price_unit, subjects, subjects_mask, targets, targets_mask, capacity,
                status, writer_id, favorite_count, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """).execute(arguments: [listing.id] + columnValues(listing) + [
                listing.status.rawValue, listing.writerId, listing.createdAt.millisecondsSince1970,
                listing.updatedAt.millisecondsSince1970])
        try db.cachedStatement(sql: "INSERT INTO class_search (rowid, tokens, cells) VALUES (?, ?, ?)").execute(arguments: [
            db.lastInsertedRowID, ClassSearchDocument.tokens(name: listing.name, description: listing.description),
            ClassSearchDocument.cells(geohash: storedGeohash(of: listing))])
    }

    public func view(id: String, viewerId: String?) async throws -> ClassView? {
        try await writer.read { db in
            try ClassViewQuery.fetchAll(db, viewerId: viewerId, where: "c.id = ?", arguments: [id]).first
        }
    }

    public func update(id: String, by userId: String, _ change: @Sendable (inout ClassListing) throws -> Void) async throws -> ClassView {
        try await writer.write { db in
            var listing = try Self.fetchView(id: id, viewerId: userId, db).listing
            try ClassRules.checkWriter(of: listing, is: userId, to: "change")
            let before = listing
            try change(&listing)
            if listing.imageIds != before.imageIds {
                try Self.checkImages(listing.imageIds.filter { !before.imageIds.contains($0) }, ownedBy: userId, db)
                try Self.replaceImages(of: id, with: listing.imageIds, db)
            }
            try db.execute(
                sql: """
                    UPDATE classes SET type = ?, name = ?, description = ?, days = ?, days_mask = ?, time = ?,
                        place = ?, lat = ?, lon = ?, geohash = ?, keyword_location = ?, price = ?, price_unit = ?,
                        subjects = ?, subjects_mask = ?, targets = ?, targets_mask = ?, capacity = ?, status = ?,
                        updated_at = ?
                    WHERE id = ?
                    """,
                arguments: Self.columnValues(listing) + [listing.status.rawValue, Date().millisecondsSince1970, id])
            if listing.name != before.name || listing.description != before.description || listing.location != before.location {
                try Self.indexKeywords(of: listing, db)
            }
            if listing.status == .open, before.status != .open {
                try db.execute(AlertOutbox.enqueue(classId: id, at: Date()))
            }
            return try Self.fetchView(id: id, viewerId: userId, db)
        }
    }

    public func delete(id: String, by userId: String) async throws {
        try await writer.write { db in
            let listing = try Self.fetchView(id: id, viewerId: userId, db).listing
            try ClassRules.checkWriter(of: listing, is: userId, to: "delete")
            let now = Date().millisecondsSince1970
            // The row stays (closed, marked deleted) so that chat rooms and matches keep their class summary.
            try db.execute(sql: "UPDATE classes SET deleted_at = ?, updated_at = ?, status = 'closed', favorite_count = 0 WHERE id = ?",
                           arguments: [now, now, id])
            try db.execute(sql: "DELETE FROM favorites WHERE class_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM class_images WHERE class_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM class_search WHERE rowid = (SELECT rowid FROM classes WHERE id = ?)", arguments: [id])
        }
    }

    public func search(_ search: ClassSearch, viewerId: String?, page: PageRequest) async throws -> Page<ClassView> {
        try await writer.read { db in
            try SQLiteClassSearch(search: search, page: page, viewerId: viewerId).run(db)
        }
    }

    public func setFavorite(classId: String, userId: String, _ isFavorite: Bool) async throws {
        try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM classes WHERE id = ? AND deleted_at IS NULL)",
                                    arguments: [classId]) == true
            else { throw DomainError.notFound("class") }
            if isFavorite {
                try db.execute(sql: "INSERT OR IGNORE INTO favorites (user_id, class_id, created_at) VALUES (?, ?, ?)",
                               arguments: [userId, classId, Date().millisecondsSince1970])
            } else {
                try db.execute(sql: "DELETE FROM favorites WHERE user_id = ? AND class_id = ?", arguments: [userId, classId])
            }
            if db.changesCount > 0 {
                try db.execute(sql: "UPDATE classes SET favorite_count = favorite_count + ? WHERE id = ?",
                               arguments: [isFavorite ? 1 : -1, classId])
            }
        }
    }

    public func favorites(of userId: String, page: PageRequest) async throws -> Page<ClassView> {
        try await writer.read { db in
            var condition = "c.id IN (SELECT class_id FROM favorites WHERE user_id = :owner)"
            var arguments: [String: (any DatabaseValueConvertible)?] = ["owner": userId]
            if let after = page.after, let savedAt = after.values.first?.int, let classId = after.values.last?.string {
                condition += " AND (fav.created_at < :savedAt OR (fav.created_at = :savedAt AND c.id < :classId))"
                arguments["savedAt"] = savedAt
                arguments["classId"] = classId
            }
            let rows = try ClassViewQuery.fetchRows(
                db, viewerId: userId,
                join: "JOIN favorites fav ON fav.class_id = c.id AND fav.user_id = :owner",
                extraColumns: ", fav.created_at AS saved_at",
                where: condition, orderBy: "fav.created_at DESC, c.id DESC", limit: page.limit + 1,
                arguments: StatementArguments(arguments))
            return ClassViewQuery.page(rows, limit: page.limit) { row, view in
                PageCursor(ordering: "favorites", values: [.int(row["saved_at"]), .string(view.listing.id)])
            }
        }
    }

    public func classes(writtenBy writerId: String, viewerId: String?, page: PageRequest) async throws -> Page<ClassView> {
        try await writer.read { db in
            var condition = "c.writer_id = :writer"
            var arguments: [String: (any DatabaseValueConvertible)?] = ["writer": writerId]
            if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
                condition += " AND (c.created_at < :createdAt OR (c.created_at = :createdAt AND c.id < :id))"
                arguments["createdAt"] = createdAt
                arguments["id"] = id
            }
            let rows = try ClassViewQuery.fetchRows(
                db, viewerId: viewerId, where: condition, orderBy: "c.created_at DESC, c.id DESC",
                limit: page.limit + 1, arguments: StatementArguments(arguments))
            return ClassViewQuery.page(rows, limit: page.limit) { _, view in
                PageCursor(ordering: "recent", values: [.int(view.listing.createdAt.millisecondsSince1970), .string(view.listing.id)])
            }
        }
    }

    /// The geohash stored for a listing's location (nil without one).
    private static func storedGeohash(of listing: ClassListing) -> String? {
        listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
    }

    /// The values of the columns from `type` to `capacity`, in the order of the INSERT and UPDATE statements.
    private static func columnValues(_ listing: ClassListing) -> StatementArguments {
        [listing.type.rawValue, listing.name, listing.description, StoredList.encode(listing.days),
         BitMask.of(listing.days), listing.time, listing.place, listing.location?.lat, listing.location?.lon,
         storedGeohash(of: listing),
         listing.keywordLocation, listing.price, listing.priceUnit.rawValue, StoredList.encode(listing.subjects),
         BitMask.of(listing.subjects), StoredList.encode(listing.targets), BitMask.of(listing.targets),
         listing.capacity]
    }

    private static func fetchView(id: String, viewerId: String?, _ db: Database) throws -> ClassView {
        guard let view = try ClassViewQuery.fetchAll(db, viewerId: viewerId, where: "c.id = ?", arguments: [id]).first else {
            throw DomainError.notFound("class")
        }
        return view
    }

    /// Throws a validation error on `imageIds` unless every image exists and was uploaded by `userId`.
    private static func checkImages(_ imageIds: [String], ownedBy userId: String, _ db: Database) throws {
        guard !imageIds.isEmpty else { return }
        let owned = try String.fetchSet(
            db, sql: "SELECT id FROM images WHERE uploader_id = ? AND id IN (SELECT value FROM json_each(?))",
            arguments: [userId, StoredList.encodeStrings(imageIds)])
        let foreign = imageIds.filter { !owned.contains($0) }
        if !foreign.isEmpty {
            throw DomainError.invalid("imageIds", "must be images you uploaded; unknown: \(foreign.joined(separator: ", "))")
        }
    }

    /// Stores the keyword-search tokens of a listing's name and description, and its cell tokens.
    private static func indexKeywords(of listing: ClassListing, _ db: Database) throws {
        guard let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM classes WHERE id = ?", arguments: [listing.id]) else { return }
        try db.execute(sql: "DELETE FROM class_search WHERE rowid = ?", arguments: [rowid])
        try db.execute(sql: "INSERT INTO class_search (rowid, tokens, cells) VALUES (?, ?, ?)",
                       arguments: [rowid, ClassSearchDocument.tokens(name: listing.name, description: listing.description),
                                   ClassSearchDocument.cells(geohash: storedGeohash(of: listing))])
    }

    private static func replaceImages(of classId: String, with imageIds: [String], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM class_images WHERE class_id = ?", arguments: [classId])
        for (position, imageId) in imageIds.enumerated() {
            try db.execute(sql: "INSERT INTO class_images (class_id, position, image_id) VALUES (?, ?, ?)",
                           arguments: [classId, position, imageId])
        }
    }
}
