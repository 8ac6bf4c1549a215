import ClassTodayCore
import Foundation
import Logging
import Testing
@testable import ClassTodayServer

/// Upgrading a database that has listings with images: the migration that keeps each listing's image ids beside it
/// (`classes.image_ids`) fills them in from `class_images`, in order, on each backend.
@Suite("Class image ids migration")
struct ClassImageIdsMigrationTests {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Migrates `database` up to the migration, writes a listing with three images (inserted out of order) and one
    /// without in that schema, migrates the rest, and checks both listings as the column and the repository read them.
    static func upgrade(
        _ database: any SQLDatabase, migrations: [Migration], migrate: ([Migration]) async throws -> Void
    ) async throws {
        let upgrade = try #require(migrations.firstIndex { $0.name == "class_image_ids" })
        try await migrate(Array(migrations[..<upgrade]))
        let now = Date().millisecondsSince1970
        try await database.transaction { db in
            try await db.execute("""
                INSERT INTO users (id, email, email_normalized, password_hash, nickname, created_at, updated_at)
                VALUES ('writer', 'w@example.com', 'w@example.com', 'h', 'w', \(now), \(now))
                """)
            for classId in ["bare", "shown"] {
                try await db.execute("""
                    INSERT INTO classes (id, type, name, price_unit, capacity, writer_id, created_at, updated_at)
                    VALUES (\(classId), 'sell', '기타', 'perHour', 1, 'writer', \(now), \(now))
                    """)
            }
            for (position, imageId) in [(2, "image-c"), (0, "image-a"), (1, "image-b")] {
                try await db.execute("""
                    INSERT INTO images (id, sha256, format, bytes, width, height, uploader_id, created_at)
                    VALUES (\(imageId), \(String(repeating: "0", count: 64)), 'png', 1, 1, 1, 'writer', \(now))
                    """)
                try await db.execute("INSERT INTO class_images (class_id, position, image_id) VALUES ('shown', \(position), \(imageId))")
            }
        }
        try await migrate(migrations)
        let stored = try await database.rows("SELECT id, image_ids FROM classes ORDER BY id").map { row in
            [try row["id"] as String: StoredList.decodeStrings(try row["image_ids"] as String)]
        }
        #expect(stored == [["bare": []], ["shown": ["image-a", "image-b", "image-c"]]])
        let shown = try await SQLClassRepository(database: database).view(id: "shown", viewerId: nil)
        #expect(shown?.listing.imageIds == ["image-a", "image-b", "image-c"])
    }

    @Test("SQLite: a listing's images written before the upgrade are its image ids after it, by position", .sqliteOnly)
    func sqlite() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("image-ids-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path, durableCommits: false)
        let migrations = try Migration.load(from: TestServer.migrationsDirectory + "/sqlite")
        try await Self.upgrade(store.database, migrations: migrations) { try await store.migrate($0, logger: Self.logger) }
    }

    @Test("PostgreSQL: a listing's images written before the upgrade are its image ids after it, by position", .postgresOnly)
    func postgres() async throws {
        let store = try PostgresStore.open(url: try #require(try PostgresTestDatabase.freshURL()), logger: Self.logger)
        defer { store.close() }
        let migrations = try Migration.load(from: TestServer.migrationsDirectory + "/postgres")
        try await Self.upgrade(store.database, migrations: migrations) { try await store.migrate($0, logger: Self.logger) }
    }
}
