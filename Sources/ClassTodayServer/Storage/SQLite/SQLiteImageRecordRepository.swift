import ClassTodayCore
import Foundation
import GRDB

/// Image records stored in the embedded SQLite database. Committing and removing image files happens inside
/// the same write transactions as the records, so that the garbage collector and an upload of the same bytes
/// can never leave a record without its file.
public struct SQLiteImageRecordRepository: ImageRecordRepository {
    private let writer: DatabasePool
    private let images: any ImageRepository

    /// Creates the repository over an open store, keeping files in `images`.
    public init(store: SQLiteStore, images: any ImageRepository) {
        self.writer = store.writer
        self.images = images
    }

    public func create(_ record: ImageRecord, blob: PreparedBlob) async throws {
        try await writer.write { [images] db in
            try db.execute(
                sql: """
                    INSERT INTO images (id, sha256, format, bytes, width, height, uploader_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [record.id, record.sha256, record.format.rawValue, record.bytes, record.width, record.height,
                            record.uploaderId, record.createdAt.millisecondsSince1970])
            try images.commit(blob)
        }
    }

    public func record(id: String) async throws -> ImageRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM images WHERE id = ?", arguments: [id]).map(Self.record(row:))
        }
    }

    public func delete(id: String, by userId: String) async throws {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM images WHERE id = ?", arguments: [id]) else {
                throw DomainError.notFound("image")
            }
            let record = Self.record(row: row)
            guard record.uploaderId == userId else { throw DomainError.forbidden("only the uploader may delete this image") }
            try db.execute(sql: "UPDATE users SET profile_image_id = NULL WHERE profile_image_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM images WHERE id = ?", arguments: [id])
            _ = try removeUnnamedFiles([record.sha256], db)
        }
    }

    public func collectGarbage(uploadedBefore cutoff: Date) async throws -> (records: Int, files: Int) {
        try await writer.write { db in
            let hashes = try String.fetchAll(db, sql: """
                DELETE FROM images
                WHERE created_at < ?
                  AND NOT EXISTS (SELECT 1 FROM class_images ci WHERE ci.image_id = images.id)
                  AND NOT EXISTS (SELECT 1 FROM users u WHERE u.profile_image_id = images.id)
                  AND NOT EXISTS (SELECT 1 FROM chat_messages m WHERE m.image_id = images.id)
                RETURNING sha256
                """, arguments: [cutoff.millisecondsSince1970])
            let files = try removeUnnamedFiles(Set(hashes), db)
            return (hashes.count, files)
        }
    }

    /// Removes the files of `hashes` that no record names any more; returns how many went.
    private func removeUnnamedFiles(_ hashes: some Sequence<String>, _ db: Database) throws -> Int {
        var removed = 0
        for hash in hashes where try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM images WHERE sha256 = ?)", arguments: [hash]) == false {
            try images.remove(sha256: hash)
            removed += 1
        }
        return removed
    }

    private static func record(row: Row) -> ImageRecord {
        ImageRecord(id: row["id"], sha256: row["sha256"], format: ImageFormat(rawValue: row["format"]) ?? .jpeg,
                    bytes: row["bytes"], width: row["width"], height: row["height"], uploaderId: row["uploader_id"],
                    createdAt: Date(millisecondsSince1970: row["created_at"]))
    }
}
