import Foundation
import GRDB
import Logging
import Testing
@testable import ClassTodayServer

@Suite("Migrations")
struct MigrationsTests {
    private let logger = Logger(label: "test")

    private func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("the shipped migrations apply once; a second run applies nothing")
    func appliedOnce() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path)
        let migrations = try Migration.load(from: TestServer.migrationsDirectory + "/sqlite")
        #expect(!migrations.isEmpty)
        let first = try await store.migrate(migrations, logger: logger)
        #expect(first.map(\.version) == migrations.map(\.version))
        let second = try await store.migrate(migrations, logger: logger)
        #expect(second.isEmpty)
        let recorded = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM schema_migrations") }
        #expect(recorded == migrations.count)
        let journal = try await store.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        let foreignKeys = try await store.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(foreignKeys == 1)
    }

    @Test("the writer, the connection that commits, waits for the disk on each commit only when durable commits are on",
          arguments: [(true, 2), (false, 1)])
    func writerSynchronous(durableCommits: Bool, level: Int) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path, durableCommits: durableCommits)
        // Read through the writer: readers never commit, and GRDB's WAL set-up changes the writer's setting only.
        let synchronous = try await store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(synchronous == level) // 2 = FULL, 1 = NORMAL
    }

    @Test("readers and the writer read the file through a memory map and cache 64 MB of pages, and a reader sees what the writer committed")
    func memoryMapped() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path)
        let readerMap = try await store.writer.read { db in try Int64.fetchOne(db, sql: "PRAGMA mmap_size") } ?? 0
        let writerMap = try await store.writer.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: "PRAGMA mmap_size") } ?? 0
        // SQLite lowers the size asked for to its compile-time maximum, but never to nothing.
        #expect(readerMap > 0 && readerMap <= SQLiteStore.memoryMapSize)
        #expect(writerMap == readerMap)
        // The pages past the map are cached, 64 MB a connection (a negative cache_size counts KiB).
        let readerCache = try await store.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        let writerCache = try await store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        #expect(readerCache == -SQLiteStore.pageCacheKiB && readerCache == -65_536)
        #expect(writerCache == readerCache)
        try await store.writer.write { db in
            try db.execute(sql: "CREATE TABLE t (x INTEGER) STRICT")
            for x in 0..<2_000 { try db.execute(sql: "INSERT INTO t (x) VALUES (?)", arguments: [x]) }
        }
        let sum = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT SUM(x) FROM t") }
        #expect(sum == 1_999_000)
    }

    #if os(Linux)
    @Test("the memory map of the database file reads from storage only the page touched (MADV_RANDOM); the WAL index's map is left as is")
    func memoryMapReadsOnePage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let store = try SQLiteStore.open(path: path)
        try await store.writer.write { db in try db.execute(sql: "CREATE TABLE t (x TEXT) STRICT") }
        // Each round's rows go from the WAL into the file, which a reader then maps; in the second, the file has grown
        // past its map, which SQLite extends or makes anew.
        for (rows, syllable) in [(500, "가"), (2_000, "나")] {
            try await store.writer.write { db in
                for x in 0..<rows { try db.execute(sql: "INSERT INTO t (x) VALUES (?)", arguments: [String(repeating: syllable, count: x)]) }
            }
            try await store.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            // A read with the connection's map in use: the maps are the process's, read while the reader holds them.
            let (count, maps) = try await store.writer.read { db in
                (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t WHERE x LIKE ?", arguments: [syllable + "%"]), try Self.mapFlags(ofFilesNamed: path))
            }
            #expect(count == rows - 1)
            let databaseMaps = maps.filter { $0.file == path }
            #expect(!databaseMaps.isEmpty && databaseMaps.allSatisfy { $0.flags.contains("rr") })
            let indexMaps = maps.filter { $0.file == path + "-shm" }
            #expect(!indexMaps.isEmpty && indexMaps.allSatisfy { !$0.flags.contains("rr") })
        }
    }

    /// This process's maps of files whose paths start with `prefix`, with the kernel's flags for each (`VmFlags` in
    /// `/proc/self/smaps`: `rr` is `MADV_RANDOM`).
    private static func mapFlags(ofFilesNamed prefix: String) throws -> [(file: String, flags: Set<String>)] {
        var maps: [(file: String, flags: Set<String>)] = []
        var file: String?
        // Read to its end: the kernel gives the file no size.
        let smaps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps")).readToEnd() ?? Data()
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                file = fields.count >= 6 ? fields[5...].joined(separator: " ") : nil
            } else if fields.first == "VmFlags:", let current = file, current.hasPrefix(prefix) {
                maps.append((current, Set(fields.dropFirst().map(String.init))))
            }
        }
        return maps
    }
    #endif

    @Test("a migration changed after it was applied is refused, and nothing else is applied")
    func changedFileRefused() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = folder.appendingPathComponent("sqlite")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try "CREATE TABLE a (x INTEGER) STRICT;".write(to: files.appendingPathComponent("0001_a.sql"), atomically: true, encoding: .utf8)
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path)
        try await store.migrate(try Migration.load(from: files.path), logger: logger)

        try "CREATE TABLE a (x INTEGER, y TEXT) STRICT;".write(to: files.appendingPathComponent("0001_a.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE b (x INTEGER) STRICT;".write(to: files.appendingPathComponent("0002_b.sql"), atomically: true, encoding: .utf8)
        await #expect(throws: MigrationError.checksumMismatch(version: "0001", name: "a")) {
            try await store.migrate(try Migration.load(from: files.path), logger: logger)
        }
        let tableB = try await store.writer.read { db in try db.tableExists("b") }
        #expect(!tableB)
    }

    @Test("a failing migration rolls back entirely and is not recorded")
    func failingMigrationRollsBack() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = folder.appendingPathComponent("sqlite")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try "CREATE TABLE ok (x INTEGER) STRICT;".write(to: files.appendingPathComponent("0001_ok.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE half (x INTEGER) STRICT; SELECT * FROM missing_table;"
            .write(to: files.appendingPathComponent("0002_bad.sql"), atomically: true, encoding: .utf8)
        let store = try SQLiteStore.open(path: folder.appendingPathComponent("db.sqlite").path)
        await #expect(throws: (any Error).self) {
            try await store.migrate(try Migration.load(from: files.path), logger: logger)
        }
        let state = try await store.writer.read { db in
            (try db.tableExists("ok"), try db.tableExists("half"),
             try String.fetchAll(db, sql: "SELECT version FROM schema_migrations"))
        }
        #expect(state.0 && !state.1 && state.2 == ["0001"])
    }

    @Test("a database with a migration this server does not know is refused")
    func unknownVersionRefused() throws {
        let files = [Migration(version: "0001", name: "a", sql: "SELECT 1")]
        let applied = [AppliedMigration(version: "0001", checksum: files[0].checksum), AppliedMigration(version: "0002", checksum: "x")]
        #expect(throws: MigrationError.unknownAppliedVersion("0002")) {
            try MigrationPlan.pending(files: files, applied: applied)
        }
    }

    @Test("files are ordered numerically and badly named files are refused")
    func fileNames() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["0010_c.sql", "0002_b.sql", "0001_a.sql"] {
            try "SELECT 1;".write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        #expect(try Migration.load(from: folder.path).map(\.version) == ["0001", "0002", "0010"])
        try "SELECT 1;".write(to: folder.appendingPathComponent("notes.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.badFileName("notes.sql")) { try Migration.load(from: folder.path) }
    }
}
