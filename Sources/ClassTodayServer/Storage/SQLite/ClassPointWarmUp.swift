import Logging
import ServiceLifecycle

/// Reads the listings' points (``ClassPointIndex``) as the server starts, so that no search waits for them: searches
/// that come first walk their circles with SQL until the points are read.
struct ClassPointWarmUp: Service {
    /// The database whose points to read.
    let store: SQLiteStore
    /// Where the outcome is reported.
    let logger: Logger

    func run() async throws {
        let start = ContinuousClock.now
        do {
            if let points = try await store.database.read({ db in try await db.classPoints?.points(db)?.count }) {
                logger.info("listings' points read", metadata: ["points": "\(points)", "duration": "\(ContinuousClock.now - start)"])
            } else {
                logger.notice("listings' points not held (a listing's id is not one the server makes): circles walk with SQL")
            }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("listings' points could not be read; circles walk with SQL", metadata: ["error": "\(String(reflecting: error))"])
        }
        // A service that returns would stop the server; this one has nothing left to do until shutdown.
        try? await gracefulShutdown()
    }
}
