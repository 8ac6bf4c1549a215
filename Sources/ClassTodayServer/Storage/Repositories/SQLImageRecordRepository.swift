import ClassTodayCore
import Foundation
import Logging

/// Image records, on either backend. Committing an image's bytes happens inside the transaction that records it; the
/// transaction that removes the last record naming some bytes queues their removal (`image_removals`), which runs
/// after its commit in a transaction of its own that checks again that no record names them, so that the garbage
/// collector and an upload of the same bytes can never leave a record without its bytes, and a store that cannot be
/// reached delays a removal instead of losing it. On PostgreSQL several nodes share the store: a transaction-scoped
/// lock per content hash (``SQLDialect/transactionLock(space:key:)``) stands in for SQLite's single writer, held by an
/// upload from its insert until its commit and taken by removal before it checks that no record names the hash.
public struct SQLImageRecordRepository: ImageRecordRepository {
    let database: any SQLDatabase
    let images: any ImageRepository
    let logger: Logger

    /// Creates the repository over a database, keeping files in `images`; failed removals are logged to `logger`.
    public init(database: any SQLDatabase, images: any ImageRepository, logger: Logger = Logger(label: "classtoday.images")) {
        self.database = database
        self.images = images
        self.logger = logger
    }

    public func create(_ record: ImageRecord, blob: PreparedBlob) async throws {
        try await database.transaction { [images] db in
            try await Self.lockFile(sha256: record.sha256, db)
            try await db.execute("""
                INSERT INTO images (id, sha256, format, bytes, width, height, uploader_id, created_at)
                VALUES (\(record.id), \(record.sha256), \(record.format.rawValue), \(record.bytes), \(record.width),
                    \(record.height), \(record.uploaderId), \(record.createdAt.millisecondsSince1970))
                """)
            try await images.commit(blob)
        }
    }

    public func record(id: String) async throws -> ImageRecord? {
        try await database.row("SELECT * FROM images WHERE id = \(id)").map(Self.record(row:))
    }

    public func delete(id: String, by userId: String) async throws {
        let queued = try await database.transaction { db -> [String] in
            guard let row = try await db.row("SELECT * FROM images WHERE id = \(id) \(raw: db.dialect.lockForUpdate)") else {
                throw DomainError.notFound("image")
            }
            let record = try Self.record(row: row)
            try ImageRules.checkDeletion(of: record, by: userId)
            try await db.execute("UPDATE users SET profile_image_id = NULL WHERE profile_image_id = \(id)")
            try await Self.removeFromListings(imageId: id, db)
            try await db.execute("DELETE FROM images WHERE id = \(id)")
            return try await Self.queueUnnamedFiles([record.sha256], db)
        }
        _ = await removeQueued(queued)
    }

    /// Takes the image `imageId` out of the listings that show it: their `class_images` rows, and their `image_ids`
    /// read again from the rows left, in order.
    private static func removeFromListings(imageId: String, _ db: any SQLExecutor) async throws {
        let classIds: [String] = try await db.rows("DELETE FROM class_images WHERE image_id = \(imageId) RETURNING class_id")
            .map { try $0["class_id"] }
        guard !classIds.isEmpty else { return }
        let imageIds = db.dialect.jsonArray(of: "ci.image_id", from: "class_images ci WHERE ci.class_id = classes.id", orderBy: "ci.position")
        try await db.execute("UPDATE classes SET image_ids = \(raw: imageIds) WHERE id IN \(db.dialect.list(classIds))")
    }

    public func collectGarbage(uploadedBefore cutoff: Date, by uploaderId: String?) async throws -> (records: Int, files: Int) {
        let byUploader: SQLStatement = uploaderId.map { "AND uploader_id = \($0)" } ?? ""
        let (records, queued) = try await database.transaction { db -> (Int, [String]) in
            // Lock the candidates first (waiting for anyone attaching one to a class), then check the references
            // again in a new statement, which sees what those attached.
            let candidates: [String] = try await db.rows("""
                SELECT id FROM images WHERE created_at < \(cutoff.millisecondsSince1970) AND \(raw: Self.unreferenced) \(byUploader)
                ORDER BY id \(raw: db.dialect.lockForUpdate)
                """).map { try $0["id"] }
            guard !candidates.isEmpty else { return (0, []) }
            let hashes: [String] = try await db.rows("""
                DELETE FROM images WHERE id IN \(db.dialect.list(candidates)) AND \(raw: Self.unreferenced) RETURNING sha256
                """).map { try $0["sha256"] }
            return (hashes.count, try await Self.queueUnnamedFiles(hashes, db))
        }
        return (records, await removeQueued(queued))
    }

    /// The condition that no class, profile or chat message shows the image of the `images` row.
    private static let unreferenced = """
        NOT EXISTS (SELECT 1 FROM class_images ci WHERE ci.image_id = images.id)
        AND NOT EXISTS (SELECT 1 FROM users u WHERE u.profile_image_id = images.id)
        AND NOT EXISTS (SELECT 1 FROM chat_messages m WHERE m.image_id = images.id)
        """

    /// Queues the removal of the stored bytes of `hashes` that no record names any more; returns those hashes.
    private static func queueUnnamedFiles(_ hashes: some Sequence<String>, _ db: any SQLExecutor) async throws -> [String] {
        var queued: [String] = []
        let now = Date().millisecondsSince1970
        // In one order, so that two transactions removing files cannot wait for each other's locks.
        for hash in Set(hashes).sorted() {
            try await lockFile(sha256: hash, db)
            if try await db.row("SELECT 1 FROM images WHERE sha256 = \(hash) LIMIT 1") == nil {
                try await db.execute("""
                    INSERT INTO image_removals (sha256, queued_at, next_attempt_at) VALUES (\(hash), \(now), \(now))
                    ON CONFLICT (sha256) DO NOTHING
                    """)
                queued.append(hash)
            }
        }
        return queued
    }

    /// Waits for the lock on the file of `sha256`, held until the transaction ends (PostgreSQL only).
    static func lockFile(sha256: String, _ db: any SQLExecutor) async throws {
        if let lock = db.dialect.transactionLock(space: fileLockSpace, key: sha256) {
            _ = try await db.rows(lock)
        }
    }

    /// The first key of the locks on content hashes ("img" in ASCII).
    private static let fileLockSpace = 0x69_6D67

    private static func record(row: SQLRow) throws -> ImageRecord {
        ImageRecord(
            id: try row["id"], sha256: try row["sha256"], format: ImageFormat(rawValue: try row["format"]) ?? .jpeg,
            bytes: try row["bytes"], width: try row["width"], height: try row["height"], uploaderId: try row["uploader_id"],
            createdAt: try row.date("created_at"))
    }
}
