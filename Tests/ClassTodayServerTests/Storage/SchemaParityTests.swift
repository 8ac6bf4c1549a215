import Foundation
import Logging
import Testing
@testable import ClassTodayServer

/// The two dialects' schema files must describe one schema: the repositories are written once over both.
@Suite("Schema parity", .postgresOnly)
struct SchemaParityTests {
    /// Tables that exist on one backend only, on purpose, with the reason.
    static let backendOnly: Set<String> = [
        // SQLite's keyword index is an FTS5 table (PostgreSQL keeps a tsvector column, `classes.search`), plus the
        // shadow tables FTS5 creates; `class_search_cells` and `alert_cells` remain from superseded migrations.
        "class_search", "class_search_cells", "alert_cells",
        // Where a build of a new SQLite keyword index stands (PostgreSQL re-indexes its column in place).
        "keyword_index_build",
        // PostgreSQL's chat bus records which node holds which user's sockets (one SQLite node needs no record).
        "chat_presence",
        // SQLite's log of changes to listings, which its in-memory points of listings follow (PostgreSQL reads circles
        // in its index's nearest-first order instead).
        "class_point_changes",
    ]

    /// Columns that exist on one backend only, on purpose: PostgreSQL's keyword vectors (SQLite's are in `class_search`).
    static let backendOnlyColumns: Set<String> = ["classes.search", "classes.name_search"]

    /// `table.column` for every column of the tables both backends share.
    static func columns(_ rows: [SQLRow]) throws -> Set<String> {
        Set(try rows.compactMap { row -> String? in
            let table: String = try row["table_name"]
            let column: String = try row["column_name"]
            let shadow = backendOnly.contains { table.hasPrefix($0) } || table.hasPrefix("sqlite_")
            let key = table + "." + column
            return shadow || backendOnlyColumns.contains(key) ? nil : key
        })
    }

    @Test("both schemas hold the same tables and columns")
    func sameTablesAndColumns() async throws {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path, durableCommits: false)
        try await sqlite.migrate(try Migration.load(from: TestServer.migrationsDirectory + "/sqlite"), logger: logger)
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        let postgres = try PostgresStore.open(url: url, logger: logger)
        defer { postgres.close() }

        let sqliteColumns = try Self.columns(try await sqlite.database.rows("""
            SELECT m.name AS table_name, p.name AS column_name
            FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'
            """))
        let postgresColumns = try Self.columns(try await postgres.database.rows("""
            SELECT table_name::text AS table_name, column_name::text AS column_name
            FROM information_schema.columns WHERE table_schema = 'public'
            """))
        #expect(sqliteColumns.subtracting(postgresColumns).sorted() == [], "only in SQLite")
        #expect(postgresColumns.subtracting(sqliteColumns).sorted() == [], "only in PostgreSQL")
        #expect(sqliteColumns.count > 100)
    }
}
