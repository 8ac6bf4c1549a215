import Logging
import ServiceLifecycle

/// Keeps the SQLite pool open until graceful shutdown, then closes it (``SQLiteStore/close(logger:)``): the
/// write-ahead log is checkpointed and removed, whatever else still holds the store. Listed before every service that
/// uses the database, so that it stops last.
struct SQLiteClosing: Service {
    /// The database to close.
    let store: SQLiteStore
    /// Where a close that fails is reported.
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        store.close(logger: logger)
    }
}
