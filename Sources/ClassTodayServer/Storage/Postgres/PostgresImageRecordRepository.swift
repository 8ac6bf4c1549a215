import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Image records stored in PostgreSQL; the port of ``SQLiteImageRecordRepository``. Committing and removing
/// image files happens inside the same transactions as the records, as in SQLite.
///
/// Several nodes share the files' folder, so a transaction-scoped advisory lock per content hash stands in for
/// SQLite's single writer: an upload holds it from its insert until its commit, and removal checks that no
/// record names the hash only once it holds it, so that an upload of the same bytes and the garbage collector
/// can never leave a record without its file.
public struct PostgresImageRecordRepository: ImageRecordRepository {
    private let client: PostgresClient
    private let images: any ImageRepository
    private let logger = Logger(label: "classtoday.postgres.images")

    /// The first key of the advisory locks on content hashes ("img" in ASCII).
    private static let fileLockSpace: Int32 = 0x69_6D67

    /// Creates the repository over an open store, keeping files in `images`.
    public init(store: PostgresStore, images: any ImageRepository) {
        self.client = store.client
        self.images = images
    }

    public func create(_ record: ImageRecord, blob: PreparedBlob) async throws {
        try await PostgresRows.transaction(client, logger: logger) { [images, logger] connection in
            try await Self.lockFile(sha256: record.sha256, connection, logger)
            try await connection.query("""
                INSERT INTO images (id, sha256, format, bytes, width, height, uploader_id, created_at)
                VALUES (\(record.id), \(record.sha256), \(record.format.rawValue), \(record.bytes), \(record.width),
                    \(record.height), \(record.uploaderId), \(record.createdAt.millisecondsSince1970))
                """, logger: logger)
            try images.commit(blob)
        }
    }

    public func record(id: String) async throws -> ImageRecord? {
        try await PostgresRows.all(client.query("SELECT * FROM images WHERE id = \(id)", logger: logger))
            .first.map(Self.record(row:))
    }

    public func delete(id: String, by userId: String) async throws {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            guard let row = try await PostgresRows.all(connection.query(
                "SELECT * FROM images WHERE id = \(id) FOR UPDATE", logger: logger)).first
            else { throw DomainError.notFound("image") }
            let record = try Self.record(row: row)
            guard record.uploaderId == userId else { throw DomainError.forbidden("only the uploader may delete this image") }
            try await connection.query("UPDATE users SET profile_image_id = NULL WHERE profile_image_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM images WHERE id = \(id)", logger: logger)
            _ = try await removeUnnamedFiles([record.sha256], connection)
        }
    }

    public func collectGarbage(uploadedBefore cutoff: Date) async throws -> (records: Int, files: Int) {
        let (records, files) = try await PostgresRows.transaction(client, logger: logger) { connection -> (Int, Int) in
            // Lock the candidates first (waiting for anyone attaching one to a class), then check the references
            // again in a new statement, which sees what those attached.
            let candidates = try await PostgresRows.all(connection.query("""
                SELECT id FROM images
                WHERE created_at < \(cutoff.millisecondsSince1970) AND \(unescaped: Self.unreferenced)
                ORDER BY id FOR UPDATE
                """, logger: logger)).map { try $0["id"].decode(String.self) }
            guard !candidates.isEmpty else { return (0, 0) }
            let hashes = try await PostgresRows.all(connection.query("""
                DELETE FROM images WHERE id = ANY(\(candidates)) AND \(unescaped: Self.unreferenced) RETURNING sha256
                """, logger: logger)).map { try $0["sha256"].decode(String.self) }
            let files = try await removeUnnamedFiles(Set(hashes), connection)
            return (hashes.count, files)
        }
        return (records, files)
    }

    /// The condition that no class, profile or chat message shows the image of the `images` row.
    private static let unreferenced = """
        NOT EXISTS (SELECT 1 FROM class_images ci WHERE ci.image_id = images.id)
        AND NOT EXISTS (SELECT 1 FROM users u WHERE u.profile_image_id = images.id)
        AND NOT EXISTS (SELECT 1 FROM chat_messages m WHERE m.image_id = images.id)
        """

    /// Removes the files of `hashes` that no record names any more; returns how many went.
    private func removeUnnamedFiles(_ hashes: some Sequence<String>, _ connection: PostgresConnection) async throws -> Int {
        var removed = 0
        // In one order, so that two transactions removing files cannot wait for each other's locks.
        for hash in Set(hashes).sorted() {
            try await Self.lockFile(sha256: hash, connection, logger)
            let named = try await PostgresRows.all(connection.query(
                "SELECT EXISTS(SELECT 1 FROM images WHERE sha256 = \(hash)) AS named", logger: logger)
            ).first?["named"].decode(Bool.self) ?? false
            if !named {
                try images.remove(sha256: hash)
                removed += 1
            }
        }
        return removed
    }

    /// Waits for the advisory lock on the file of `sha256`, held until the transaction ends.
    private static func lockFile(sha256: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        _ = try await connection.query(
            "SELECT pg_advisory_xact_lock(\(fileLockSpace), hashtext(\(sha256)))", logger: logger).collect()
    }

    private static func record(row: PostgresRandomAccessRow) throws -> ImageRecord {
        ImageRecord(
            id: try row["id"].decode(String.self), sha256: try row["sha256"].decode(String.self),
            format: ImageFormat(rawValue: try row["format"].decode(String.self)) ?? .jpeg, bytes: try row["bytes"].decode(Int.self),
            width: try row["width"].decode(Int.self), height: try row["height"].decode(Int.self),
            uploaderId: try row["uploader_id"].decode(String.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)))
    }
}
