import Foundation
import GRDB
import Logging

/// The embedded database: one SQLite file in WAL mode behind a GRDB `DatabasePool`.
public struct SQLiteStore: Sendable {
    /// The pool every SQLite repository reads and writes through.
    public let writer: DatabasePool
    /// The listings' points in memory, for nearest-first circles.
    let classPoints: ClassPointIndex
    /// The keyword tokens' counts in memory, for keyword searches.
    let tokenCounts: TokenCounts

    /// The store over `writer`, with nothing in memory yet, telling `logger` what goes wrong in the background.
    init(writer: DatabasePool, logger: Logger) {
        let points = ClassPointIndex()
        (self.writer, classPoints) = (writer, points)
        tokenCounts = TokenCounts(index: FTS5ClassIndex(), database: SQLiteDatabase(pool: writer, points: points, counts: nil), logger: logger)
    }

    /// The backend seam over the pool, which the repositories run on.
    public var database: SQLiteDatabase { SQLiteDatabase(pool: writer, points: classPoints, counts: tokenCounts) }

    /// How much of the database file each connection reads through a memory map rather than `pread`, in bytes.
    /// SQLite lowers it to its compile-time maximum (2 GiB in Debian's build); pages past the map are read as before.
    ///
    /// A connection's own page cache is small (2 MB), so at a million listings most pages a search reads came through
    /// `pread`, each a system call and a copy out of the OS page cache (`perf` put 40 % of a search benchmark's CPU time
    /// there). Mapped, circle pages took 5–30 % less at p50. Only reads use the map: commits still go through the WAL
    /// and `fsync`, so durability is unchanged.
    static let memoryMapSize: Int64 = 16 << 30

    /// How many KiB of pages each connection keeps in its own page cache (`PRAGMA cache_size`): the pages past the
    /// memory map, which are read with `pread`.
    ///
    /// SQLite's default of 2 MB held too few of them to keep the b-trees' inner pages: at a million listings (a 3.6 GB
    /// file, 1.6 GB of it past Debian's 2 GiB map), 75 % of a circle page's `pread`s read again a page the same
    /// connection had read within the last four seconds. A cache fills only with pages read, so an idle connection
    /// costs nothing; eight readers and the writer could hold 576 MB at most.
    static let pageCacheKiB = 64 << 10

    /// Opens (creating if needed) the database file at `path`.
    ///
    /// Foreign keys are on, writers wait up to `busyTimeout` for a lock, and with `durableCommits`
    /// each commit waits for the disk (`synchronous=FULL`) so that an acknowledged write survives power loss. What goes
    /// wrong in the background (a keyword count) is told to `logger`.
    public static func open(
        path: String, durableCommits: Bool = true, busyTimeout: TimeInterval = 5, logger: Logger = Logger(label: "classtoday.sqlite")
    ) throws -> SQLiteStore {
        #if canImport(Glibc)
        if !SQLiteMemoryMap.readsOnePageAtATime {
            logger.warning("SQLite's memory map reads as the kernel's default: its Unix layer refused a replacement mmap")
        }
        #endif
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.maximumReaderCount = 8
        configuration.prepareDatabase { db in
            SQLiteFunctions.register(in: db)
            // Deleted content is overwritten with zeros in the pages that held it, whatever the system library's
            // build chose (`SQLITE_SECURE_DELETE`): an erased account leaves no text in the database file.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA mmap_size = \(memoryMapSize)")
            try db.execute(sql: "PRAGMA cache_size = -\(pageCacheKiB)")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Only the writer commits, so its setting is the one that counts. It is set here, after the pool is open:
        // opening a pool puts the writer in WAL mode, which sets `synchronous = NORMAL` after `prepareDatabase` ran.
        let synchronous = durableCommits ? "FULL" : "NORMAL"
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        return SQLiteStore(writer: pool, logger: logger)
    }

    /// The keyword index build a migration may have begun, which the server runs in the background.
    var keywordIndexBuild: KeywordIndexBuild { KeywordIndexBuild(pool: writer) }

    /// Applies pending migrations, one transaction per file, and returns the ones applied. A keyword index build of at
    /// most ``KeywordIndexBuild/migrationLimit`` listings is then done at once (a new database's is empty); a larger one is
    /// left to the server, which builds it in the background (``KeywordIndexBuilder``).
    @discardableResult
    public func migrate(_ migrations: [Migration], logger: Logger) async throws -> [Migration] {
        try await writer.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version TEXT PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at INTEGER NOT NULL
                ) STRICT
                """)
        }
        let applied = try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT version, checksum FROM schema_migrations").map {
                AppliedMigration(version: $0["version"], checksum: $0["checksum"])
            }
        }
        let pending = try MigrationPlan.pending(files: migrations, applied: applied)
        for migration in pending {
            try await writer.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    // Another process may have applied it since we looked.
                    let done = try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM schema_migrations WHERE version = ?)",
                        arguments: [migration.version]) ?? false
                    if !done {
                        try db.execute(sql: migration.sql)
                        try db.execute(
                            sql: "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                            arguments: [migration.version, migration.name, migration.checksum, Date().millisecondsSince1970])
                    }
                    return .commit
                }
            }
            logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
        }
        if try await !keywordIndexBuild.finish(ifAtMost: KeywordIndexBuild.migrationLimit) {
            logger.notice("the keyword index is to be built again: the server builds it in the background")
        }
        return pending
    }

    /// Closes the pool at the end of a run: the write-ahead log is checkpointed into the database file and removed,
    /// so that nothing deleted lingers in it. Failures are logged; the database stays consistent either way.
    ///
    /// GRDB closes the writer before its readers, which are read-only, and a read-only connection cannot checkpoint:
    /// the log is emptied first (as ``SQLiteDatabase/purgeDeletedData()`` does), and the last connection to close is one opened
    /// for that alone, which removes the log as SQLite's last connection does.
    public func close(logger: Logger) {
        do {
            try writer.writeWithoutTransaction(SQLiteDatabase.truncateLog)
            try writer.close()
            let last = try DatabaseQueue(path: writer.path)
            _ = try last.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema") }
            try last.close()
        } catch {
            logger.warning("the SQLite database did not close cleanly", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Whether the database answers a trivial query.
    public func isHealthy() async -> Bool {
        (try? await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }
}

extension Date {
    /// Milliseconds since 1970-01-01 UTC, the storage form of dates.
    var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The middle of the millisecond `milliseconds` after 1970-01-01 UTC.
    ///
    /// The middle, not the start: `Date` counts seconds from 2001 in a `Double`, so the start of a millisecond can
    /// come back a hair early, and ``millisecondsSince1970`` would then give the millisecond before. Read back and
    /// stored again, a date keeps its millisecond (cursors and messages that travel between nodes rely on it).
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: (Double(milliseconds) + 0.5) / 1000)
    }
}
