import GRDB
import Logging

/// A new keyword index built beside the one searches read, then put in its place: a migration creates the FTS5 table
/// `class_search_next` and the row of `keyword_index_build` (migration 0028 did for the contentless index); each
/// ``step()`` indexes the next batch of listings by rowid, in one transaction with the row that records how far the
/// build went, so that a build killed at any point resumes where its last batch ended. The last step drops
/// `class_search` and renames `class_search_next` in its place, in one transaction: a search reads one index or the
/// other, whole.
///
/// Listings the build has passed are kept in the new index by triggers on `classes` (``KeywordIndexTriggers``), which
/// the first step adds; those ahead of it are read as they are when the build reaches them.
struct KeywordIndexBuild: Sendable {
    /// Listings read per transaction by default: few enough that a writer waits for one batch at most (about a second in
    /// a debug build on two busy cores, where 181,000 listings took 7 minutes).
    static let defaultBatchSize = 500
    /// A build of at most this many listings is done as the migrations end (``finish(ifAtMost:)``).
    static let migrationLimit = 5_000

    /// Where a build stands.
    struct Progress: Sendable, Equatable {
        /// Listings indexed so far.
        let built: Int
        /// Listings (deleted ones included) the build has still to read, as of this progress.
        let remaining: Int
    }

    /// What one ``step()`` did.
    enum Step: Sendable, Equatable {
        /// A batch of listings was read, and this many indexed (deleted ones are not); the build goes on.
        case built(Int)
        /// The new index replaced the old one.
        case finished
        /// No build was under way.
        case idle
    }

    /// The database.
    let pool: DatabasePool
    /// Listings read per transaction.
    var batchSize = Self.defaultBatchSize

    /// The build under way, or nil when there is none; counts the listings left.
    func progress() async throws -> Progress? {
        try await pool.read { db in
            // The migrations before 0028, which tests apply alone, have no builds.
            guard try db.tableExists("keyword_index_build") else { return nil }
            return try Row.fetchOne(db, sql: """
                SELECT built_listings, (SELECT COUNT(*) FROM classes WHERE rowid > built_through) AS remaining FROM keyword_index_build
                """).map { Progress(built: $0["built_listings"], remaining: $0["remaining"]) }
        }
    }

    /// Indexes the next batch, or puts the new index in place once every listing is in it.
    func step() async throws -> Step {
        try await pool.write { db in
            guard let through = try Int64.fetchOne(db, sql: "SELECT built_through FROM keyword_index_build") else { return .idle }
            for statement in KeywordIndexTriggers.statements(table: "class_search_next", onlyBuilt: true) {
                try db.execute(sql: statement)
            }
            let last = try Int64.fetchOne(db, sql: """
                SELECT MAX(rowid) FROM (SELECT rowid FROM classes WHERE rowid > ? ORDER BY rowid LIMIT ?)
                """, arguments: [through, batchSize])
            guard let last else {
                try Self.replaceIndex(db)
                return .finished
            }
            try db.execute(sql: """
                INSERT INTO class_search_next (rowid, name, tokens, cells)
                SELECT rowid, \(KeywordIndexTriggers.values(of: "classes"))
                FROM classes WHERE rowid > ? AND rowid <= ? AND deleted_at IS NULL
                """, arguments: [through, last])
            let built = db.changesCount
            try db.execute(sql: "UPDATE keyword_index_build SET built_through = ?, built_listings = built_listings + ?",
                           arguments: [last, built])
            return .built(built)
        }
    }

    /// Runs the build to its end when at most `limit` listings are left, and returns whether none is left.
    @discardableResult
    func finish(ifAtMost limit: Int) async throws -> Bool {
        guard let progress = try await progress() else { return true }
        guard progress.remaining <= limit else { return false }
        while case .built = try await step() {}
        return true
    }

    /// Drops the old index and its triggers and puts the new one in its place, with triggers of its own.
    private static func replaceIndex(_ db: Database) throws {
        let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name GLOB 'classes_keywords_*'")
        for trigger in triggers {
            try db.execute(sql: "DROP TRIGGER \(trigger.quotedDatabaseIdentifier)")
        }
        try db.execute(sql: "DROP TABLE class_search")
        try db.execute(sql: "ALTER TABLE class_search_next RENAME TO class_search")
        for statement in KeywordIndexTriggers.statements(table: "class_search", onlyBuilt: false) {
            try db.execute(sql: statement)
        }
        try db.execute(sql: "DELETE FROM keyword_index_build")
    }
}

/// The triggers on `classes` that keep a contentless keyword index: a listing's tokens are added when it is written
/// and removed, by the FTS5 `delete` command given the very tokens it was indexed with, before its text, location or
/// deletion changes. Both are recomputed from the listing's columns by the server's tokenizer.
enum KeywordIndexTriggers {
    /// The indexed values of the listing whose columns `row` names (`NEW`, `OLD`, a table), in the index's column order.
    static func values(of row: String) -> String {
        "ct_search_tokens(\(row).name, ''), ct_search_tokens(\(row).name, \(row).description), ct_search_cells(\(row).geohash, \(row).keyword_location)"
    }

    /// The statements that create the triggers keeping `table`; with `onlyBuilt`, for the listings a build has passed
    /// (rowids up to `keyword_index_build.built_through`) alone. Each creates its trigger only when it is missing.
    static func statements(table: String, onlyBuilt: Bool) -> [String] {
        let name = "classes_keywords_\(table)"
        func built(_ row: String) -> String {
            onlyBuilt ? " AND \(row).rowid <= (SELECT built_through FROM keyword_index_build)" : ""
        }
        let changed = """
            (OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.geohash IS NOT NEW.geohash
                OR OLD.keyword_location IS NOT NEW.keyword_location OR OLD.deleted_at IS NOT NEW.deleted_at)
            """
        let columns = "name, description, geohash, keyword_location, deleted_at"
        let add = { (row: String) in "INSERT INTO \(table) (rowid, name, tokens, cells) VALUES (\(row).rowid, \(values(of: row)));" }
        let remove = "INSERT INTO \(table) (\(table), rowid, name, tokens, cells) VALUES ('delete', OLD.rowid, \(values(of: "OLD")));"
        return [
            """
            CREATE TRIGGER IF NOT EXISTS \(name)_inserted AFTER INSERT ON classes
            WHEN NEW.deleted_at IS NULL\(built("NEW")) BEGIN \(add("NEW")) END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(name)_unindexed BEFORE UPDATE OF \(columns) ON classes
            WHEN OLD.deleted_at IS NULL AND \(changed)\(built("OLD")) BEGIN \(remove) END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(name)_reindexed AFTER UPDATE OF \(columns) ON classes
            WHEN NEW.deleted_at IS NULL AND \(changed)\(built("NEW")) BEGIN \(add("NEW")) END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(name)_deleted BEFORE DELETE ON classes
            WHEN OLD.deleted_at IS NULL\(built("OLD")) BEGIN \(remove) END
            """,
        ]
    }
}

extension SQLiteDatabase {
    /// Runs the keyword index build a migration began to its end, now: what `classtoday seed` and the benchmark do
    /// before they write or measure, where the server builds in the background.
    package func finishKeywordIndexBuild(logger: Logger) async throws {
        let build = KeywordIndexBuild(pool: pool)
        guard let progress = try await build.progress() else { return }
        logger.info("building the keyword index", metadata: ["remaining": "\(progress.remaining)"])
        let start = ContinuousClock.now
        try await build.finish(ifAtMost: .max)
        logger.info("keyword index built", metadata: ["duration": "\(ContinuousClock.now - start)"])
    }
}
