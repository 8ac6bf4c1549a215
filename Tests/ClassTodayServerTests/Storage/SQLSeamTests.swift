import ClassTodayCore
import Foundation
import GRDB
import Logging
import Testing
@testable import ClassTodayServer

/// Tests for the backend seam (``SQLDatabase``) on the configured backend: binding and reading values, transactions
/// that commit or roll back, unique violations, and PostgreSQL's placeholder numbering.
@Suite("SQL seam")
struct SQLSeamTests {
    /// Runs `body` on the database of a fresh, migrated environment.
    func withDatabase(_ body: (any SQLDatabase) async throws -> Void) async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        defer { if case .postgres(let store) = environment.storage { store.close() } }
        try await body(environment.storage.database)
    }

    /// Inserts a user row with `id` and `email` through `executor`.
    func insertUser(id: String, email: String, _ executor: any SQLExecutor) async throws {
        let user = User(id: id, email: email, nickname: "n", createdAt: Date())
        try await SQLUserRepository.insert(user, passwordHash: "h", executor)
    }

    @Test("values of every kind are bound and read back as they were")
    func roundTrip() async throws {
        try await withDatabase { database in
            let row = try #require(try await database.row(
                "SELECT \(Int64(1) << 40) AS big, \(2.5) AS real, \("한글 'quoted' ?") AS text, \(String?.none) AS missing"))
            #expect(try row["big"] as Int64 == 1 << 40)
            #expect(try row["real"] as Double == 2.5)
            #expect(try row["text"] as String == "한글 'quoted' ?")
            #expect(try row["missing"] as String? == nil)
            #expect(throws: (any Error).self) { try row["nowhere"] as String }
        }
    }

    @Test("a transaction commits when its body returns and rolls back when it throws, with the body's error")
    func transactions() async throws {
        struct Refused: Error {}
        try await withDatabase { database in
            try await database.transaction { db in try await insertUser(id: "kept", email: "kept@example.com", db) }
            await #expect(throws: Refused.self) {
                try await database.transaction { db in
                    try await insertUser(id: "gone", email: "gone@example.com", db)
                    throw Refused()
                }
            }
            let ids: [String] = try await database.read { db in try await db.rows("SELECT id FROM users ORDER BY id").map { try $0["id"] } }
            #expect(ids == ["kept"])
            #expect(try await database.execute("DELETE FROM users WHERE id = \("kept")") == 1)
        }
    }

    @Test("a unique violation is reported as SQLUniqueViolation, in and out of transactions")
    func uniqueViolation() async throws {
        try await withDatabase { database in
            try await insertUser(id: "a", email: "same@example.com", database)
            await #expect(throws: SQLUniqueViolation.self) { try await insertUser(id: "b", email: "same@example.com", database) }
            await #expect(throws: SQLUniqueViolation.self) {
                try await database.transaction { db in try await insertUser(id: "a", email: "other@example.com", db) }
            }
        }
    }

    @Test("a SQLite read runs its statements in one snapshot, and on a closed pool fails its statements instead of waiting")
    func sqliteReads() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seam-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path)
        let database = store.database
        try await database.execute("CREATE TABLE t (n INTEGER NOT NULL)")
        try await database.execute("INSERT INTO t (n) VALUES (1)")
        let (before, after): (Int64, Int64) = try await database.read { db in
            let before: Int64 = try await db.rows("SELECT COUNT(*) AS n FROM t")[0]["n"]
            try await database.execute("INSERT INTO t (n) VALUES (2)")
            return (before, try await db.rows("SELECT COUNT(*) AS n FROM t")[0]["n"])
        }
        #expect(before == 1 && after == 1)
        #expect(try await database.read { db in try await db.rows("SELECT COUNT(*) AS n FROM t")[0]["n"] as Int64 } == 2)

        try store.writer.close()
        await #expect(throws: (any Error).self) { try await database.read { db in try await db.rows("SELECT 1 AS one") } }
        #expect(try await database.read { _ in "no statement" } == "no statement")
    }

    @Test("PostgreSQL placeholders are numbered in order, skipping quoted text")
    func placeholders() {
        #expect(PostgresDatabase.numberPlaceholders("SELECT ? , '?', \"a?\", ?") == "SELECT $1 , '?', \"a?\", $2")
        #expect(PostgresDatabase.numberPlaceholders("SELECT '수학?', ? AS 기타, ?", typedAs: [.text("ㅅㅎ"), .real(1)])
                == "SELECT '수학?', $1::text AS 기타, $2::float8")
    }
}
