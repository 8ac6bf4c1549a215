import Logging
import PostgresNIO

extension PostgresStore {
    /// Another transaction held the `classes` table longer than ``clusterClasses(lockTimeout:)`` would wait for it: the
    /// table was left as it was.
    public struct ClassesTableBusy: Error, CustomStringConvertible {
        /// How long the rewrite waited.
        public let waited: Duration

        public var description: String {
            "another transaction held the classes table for more than \(waited); nothing was changed, try again later"
        }
    }

    /// Rewrites the listings in the order of their geohashes (`CLUSTER classes`, on the index that migration 0024
    /// marks), then refreshes the planner's statistics of the table. A radius page reads its listings from their rows in
    /// the table: rows written in the order they came lie one to a page, the 21 of a page on 21 pages of a table of
    /// 1.3 GB, and clustered they share a few. The statement reading such a page took 0.165 ms on PostgreSQL's side, and
    /// 0.110 ms clustered (the same 2 km circle on a million listings, medians of 40 runs).
    ///
    /// Every read and write of the listings waits until the rewrite is done: 122 s for a million listings on a
    /// 2-core machine. It waits at most `lockTimeout` for transactions already using the table, since statements that
    /// come meanwhile queue behind it, and throws ``ClassesTableBusy`` when that passes.
    public func clusterClasses(lockTimeout: Duration) async throws {
        let milliseconds = max(1, Int((lockTimeout.seconds * 1_000).rounded(.up)))
        do {
            try await database.transaction { db in
                try await db.execute("SET LOCAL lock_timeout = \(raw: "\(milliseconds)")")
                try await db.execute("CLUSTER classes")
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
            throw ClassesTableBusy(waited: lockTimeout)
        }
        try await database.execute("ANALYZE classes")
    }

    /// How closely the order of the listings' rows in the table follows their geohashes, from the planner's statistics:
    /// 1 once ``clusterClasses(lockTimeout:)`` rewrote it, about 0 for listings written in no order of place; nil when the
    /// table has no statistics yet.
    public func classesLocationOrder() async throws -> Double? {
        let row = try await database.row("""
            SELECT correlation FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'classes' AND attname = 'geohash'
            """)
        return try row.flatMap { try $0["correlation"] as Double? }
    }
}
