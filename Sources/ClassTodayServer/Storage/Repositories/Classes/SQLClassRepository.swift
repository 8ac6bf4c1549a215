import ClassTodayCore
import Foundation

/// Class listings and favourites, on either backend. What differs (the keyword index, a cell's read in a
/// nearest-first walk) is the backend's ``ClassSearchIndex``.
public struct SQLClassRepository: ClassRepository {
    private let database: any SQLDatabase
    private let index: any ClassSearchIndex

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
        self.index = database.dialect.classIndex
    }

    public func create(_ listing: ClassListing) async throws -> ClassView {
        try await database.transaction { db in
            try await Self.checkImages(listing.imageIds, ownedBy: listing.writerId, db)
            try await Self.insert(listing, db)
            try await Self.replaceImages(of: listing.id, with: listing.imageIds, db)
            try await db.execute(AlertOutbox.enqueue(classId: listing.id, at: listing.createdAt))
            return try await Self.view(id: listing.id, viewerId: listing.writerId, db)
        }
    }

    /// Inserts a listing's row and its keyword tokens (not its images), inside the caller's transaction.
    package static func insert(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        let columns = ColumnValues(listing)
        let createdAt = listing.createdAt.millisecondsSince1970
        let key = db.dialect.classIndex.rowKey(createdAt: createdAt)
        let keyValue: SQLStatement = key.map { "\($0.value), " } ?? ""
        try await db.execute("""
            INSERT INTO classes (\(raw: key.map { $0.column + ", " } ?? "")id, type, name, description, days, days_mask, time, place, lat, lon, geohash,
                keyword_location, price, price_unit, subjects, subjects_mask, targets, targets_mask, capacity,
                status, writer_id, favorite_count, created_at, updated_at)
            VALUES (\(keyValue)\(listing.id), \(listing.type.rawValue), \(listing.name), \(listing.description), \(columns.days),
                \(columns.daysMask), \(listing.time), \(listing.place), \(listing.location?.lat), \(listing.location?.lon),
                \(columns.geohash), \(listing.keywordLocation), \(listing.price), \(listing.priceUnit.rawValue),
                \(columns.subjects), \(columns.subjectsMask), \(columns.targets), \(columns.targetsMask), \(listing.capacity),
                \(listing.status.rawValue), \(listing.writerId), 0, \(createdAt),
                \(listing.updatedAt.millisecondsSince1970))
            """)
        try await index(listing, db)
    }

    /// Stores `listing`'s keyword tokens in the backend's index and their bigrams and words in ``KeywordVocabulary``,
    /// inside the caller's transaction.
    private static func index(_ listing: ClassListing, _ db: any SQLExecutor) async throws {
        let tokens = ClassSearchDocument.Tokens(listing)
        try await db.dialect.classIndex.index(listing, tokens: tokens, db)
        try await KeywordVocabulary.record(tokens, db)
    }

    public func view(id: String, viewerId: String?, includingHidden: Bool) async throws -> ClassView? {
        try await ClassViewQuery.view(id: id, viewerId: viewerId, moderated: !includingHidden, database)
    }

    public func update(id: String, by userId: String, _ change: @Sendable (inout ClassListing) throws -> Void) async throws -> ClassView {
        try await database.transaction { db in
            try await Self.lock(id: id, db)
            var listing = try await Self.view(id: id, viewerId: userId, db).listing
            try ClassRules.checkWriter(of: listing, is: userId, to: "change")
            let before = listing
            try change(&listing)
            if listing.imageIds != before.imageIds {
                try await Self.checkImages(listing.imageIds.filter { !before.imageIds.contains($0) }, ownedBy: userId, db)
                try await Self.replaceImages(of: id, with: listing.imageIds, db)
            }
            let columns = ColumnValues(listing)
            try await db.execute("""
                UPDATE classes SET type = \(listing.type.rawValue), name = \(listing.name), description = \(listing.description),
                    days = \(columns.days), days_mask = \(columns.daysMask), time = \(listing.time), place = \(listing.place),
                    lat = \(listing.location?.lat), lon = \(listing.location?.lon), geohash = \(columns.geohash),
                    keyword_location = \(listing.keywordLocation), price = \(listing.price), price_unit = \(listing.priceUnit.rawValue),
                    subjects = \(columns.subjects), subjects_mask = \(columns.subjectsMask), targets = \(columns.targets),
                    targets_mask = \(columns.targetsMask), capacity = \(listing.capacity), status = \(listing.status.rawValue),
                    updated_at = \(Date().millisecondsSince1970)
                WHERE id = \(id)
                """)
            if listing.name != before.name || listing.description != before.description || listing.location != before.location
                || listing.keywordLocation != before.keywordLocation {
                try await Self.index(listing, db)
            }
            if listing.status == .open, before.status != .open {
                try await db.execute(AlertOutbox.enqueue(classId: id, at: Date()))
            }
            return try await Self.view(id: id, viewerId: userId, db)
        }
    }

    public func delete(id: String, by userId: String) async throws {
        try await database.transaction { db in
            try await Self.lock(id: id, db)
            let listing = try await Self.view(id: id, viewerId: userId, db).listing
            try ClassRules.checkWriter(of: listing, is: userId, to: "delete")
            let now = Date().millisecondsSince1970
            try await index.remove(classId: id, db)
            // The row stays (closed, marked deleted) so that chat rooms and matches keep their class summary.
            try await db.execute("""
                UPDATE classes SET deleted_at = \(now), updated_at = \(now), status = 'closed', favorite_count = 0, image_ids = '[]'
                WHERE id = \(id)
                """)
            try await db.execute("DELETE FROM favorites WHERE class_id = \(id)")
            try await db.execute("DELETE FROM class_images WHERE class_id = \(id)")
        }
    }

    public func search(_ search: ClassSearch, viewerId: String?, page: PageRequest) async throws -> Page<ClassView> {
        try await self.search(search, viewerId: viewerId, page: page, fewHits: SQLClassSearch.fewHits)
    }

    /// ``search(_:viewerId:page:)`` with a walk reading at most `fewHits` keyword hits at once when it goes far
    /// (``SQLClassSearch/fewHits``) and confirming at most `confirming` candidates a page
    /// (``SQLClassSearch/confirmationBudget``): tests set 0 so that a walk reads all its cells, and few to end pages early.
    package func search(
        _ search: ClassSearch, viewerId: String?, page: PageRequest, fewHits: Int, confirming: Int = SQLClassSearch.confirmationBudget
    ) async throws -> Page<ClassView> {
        try await SQLClassSearch(search: search, page: page, viewerId: viewerId, dialect: database.dialect, fewHits: fewHits,
                                 confirming: confirming).run(on: database)
    }

    public func upgradeKeywordIndex(batchSize: Int) async throws -> Int {
        try await database.transaction { db in
            guard let state = try await db.row("SELECT version, reindexed_through FROM search_index_state WHERE id = 1 \(raw: db.dialect.lockForUpdate)")
            else { return 0 }
            let version: Int = try state["version"]
            guard version < SearchTokenizer.indexVersion else { return 0 }
            let after: String = try state["reindexed_through"]
            let listings = try await db.rows("""
                SELECT \(raw: ClassViewQuery.listingColumns) FROM classes c
                WHERE c.deleted_at IS NULL AND c.id \(raw: db.dialect.byteOrder) > \(after)
                ORDER BY c.id \(raw: db.dialect.byteOrder) LIMIT \(batchSize)
                """).map(ClassListing.init(row:))
            for listing in listings {
                try await Self.index(listing, db)
            }
            if let last = listings.last, listings.count == batchSize {
                try await db.execute("UPDATE search_index_state SET reindexed_through = \(last.id) WHERE id = 1")
            } else {
                try await db.execute("UPDATE search_index_state SET version = \(SearchTokenizer.indexVersion), reindexed_through = '' WHERE id = 1")
            }
            return listings.count
        }
    }

    public func setFavorite(classId: String, userId: String, _ isFavorite: Bool) async throws {
        try await database.transaction { db in
            // The row lock orders this change after a concurrent deletion (which clears favourites).
            guard try await db.row("""
                SELECT 1 AS found FROM classes WHERE id = \(classId) AND deleted_at IS NULL \(raw: db.dialect.lockForNoKeyUpdate)
                """) != nil
            else { throw DomainError.notFound("class") }
            let changed = isFavorite
                ? try await db.execute("""
                    INSERT INTO favorites (user_id, class_id, created_at) VALUES (\(userId), \(classId), \(Date().millisecondsSince1970))
                    ON CONFLICT DO NOTHING
                    """)
                : try await db.execute("DELETE FROM favorites WHERE user_id = \(userId) AND class_id = \(classId)")
            if changed > 0 {
                try await db.execute("UPDATE classes SET favorite_count = favorite_count + \(isFavorite ? 1 : -1) WHERE id = \(classId)")
            }
        }
    }

    public func favorites(of userId: String, page: PageRequest) async throws -> Page<ClassView> {
        var condition: SQLStatement = "true"
        if let after = page.after, let savedAt = after.values.first?.int, let classId = after.values.last?.string {
            condition = "fav.created_at < \(savedAt) OR (fav.created_at = \(savedAt) AND c.id < \(classId))"
        }
        let rows = try await database.rows(ClassViewQuery.select(
            viewerId: userId, database.dialect, extraColumns: ", fav.created_at AS saved_at",
            join: "JOIN favorites fav ON fav.class_id = c.id AND fav.user_id = \(userId)", where: condition,
            orderBy: "fav.created_at DESC, c.id DESC", limit: page.limit + 1))
        return try ClassViewQuery.page(rows, limit: page.limit) { row, view in
            PageCursor(ordering: "favorites", values: [.int(try row["saved_at"]), .string(view.listing.id)])
        }
    }

    public func classes(writtenBy writerId: String, viewerId: String?, page: PageRequest) async throws -> Page<ClassView> {
        var condition: SQLStatement = "c.writer_id = \(writerId)"
        if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
            condition.append(" AND (c.created_at < \(createdAt) OR (c.created_at = \(createdAt) AND c.id < \(id)))")
        }
        let rows = try await database.rows(ClassViewQuery.select(
            viewerId: viewerId, database.dialect, where: condition, orderBy: "c.created_at DESC, c.id DESC", limit: page.limit + 1))
        return try ClassViewQuery.page(rows, limit: page.limit) { _, view in
            PageCursor(ordering: "recent", values: [.int(view.listing.createdAt.millisecondsSince1970), .string(view.listing.id)])
        }
    }

    /// The stored forms of a listing's list and location fields.
    private struct ColumnValues {
        let days: String
        let daysMask: Int64
        let geohash: String?
        let subjects: String
        let subjectsMask: Int64
        let targets: String
        let targetsMask: Int64

        init(_ listing: ClassListing) {
            days = StoredList.encode(listing.days)
            daysMask = BitMask.of(listing.days)
            geohash = listing.location.map { Geohash($0, precision: Geohash.storagePrecision).string }
            subjects = StoredList.encode(listing.subjects)
            subjectsMask = BitMask.of(listing.subjects)
            targets = StoredList.encode(listing.targets)
            targetsMask = BitMask.of(listing.targets)
        }
    }

    /// Locks the class row for the rest of the transaction on PostgreSQL (a missing row is reported by the read that
    /// follows); SQLite's one writer needs no lock.
    private static func lock(id: String, _ db: any SQLExecutor) async throws {
        guard !db.dialect.lockForUpdate.isEmpty else { return }
        try await db.execute("SELECT 1 FROM classes WHERE id = \(id) \(raw: db.dialect.lockForUpdate)")
    }

    private static func view(id: String, viewerId: String?, _ db: any SQLExecutor) async throws -> ClassView {
        guard let view = try await ClassViewQuery.view(id: id, viewerId: viewerId, db) else { throw DomainError.notFound("class") }
        return view
    }

    /// Throws a validation error on `imageIds` unless every image exists and was uploaded by `userId`.
    private static func checkImages(_ imageIds: [String], ownedBy userId: String, _ db: any SQLExecutor) async throws {
        guard !imageIds.isEmpty else { return }
        let owned = Set(try await db.rows("SELECT id FROM images WHERE uploader_id = \(userId) AND id IN \(db.dialect.list(imageIds))")
            .map { try $0["id"] as String })
        let foreign = imageIds.filter { !owned.contains($0) }
        if !foreign.isEmpty {
            throw DomainError.invalid("imageIds", "must be images you uploaded; unknown: \(foreign.joined(separator: ", "))")
        }
    }

    /// Makes `imageIds` the images of the listing `classId`, in order: its `class_images` rows and its `image_ids` column.
    private static func replaceImages(of classId: String, with imageIds: [String], _ db: any SQLExecutor) async throws {
        try await db.execute("DELETE FROM class_images WHERE class_id = \(classId)")
        try await db.execute("UPDATE classes SET image_ids = \(StoredList.encodeStrings(imageIds)) WHERE id = \(classId)")
        guard !imageIds.isEmpty else { return }
        var insert: SQLStatement = "INSERT INTO class_images (class_id, position, image_id) VALUES "
        insert.isCached = false
        for (position, imageId) in imageIds.enumerated() {
            insert.append(position == 0 ? "" : ", ")
            insert.append("(\(classId), \(position), \(imageId))")
        }
        try await db.execute(insert)
    }
}
