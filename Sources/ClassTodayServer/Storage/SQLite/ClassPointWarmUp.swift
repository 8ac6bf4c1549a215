import Logging
import ServiceLifecycle

/// Reads the listings' points (``ClassPointIndex``) as the server starts, so that no search waits for them: searches
/// that come first walk their circles with SQL until the points are read. Then reads them again whole each time a
/// search on an event loop found them too far behind (``ClassPointIndex/wholeReadsWanted``), away from the loops.
struct ClassPointWarmUp: Service {
    /// The database whose points to read.
    let store: SQLiteStore
    /// Where the outcome is reported.
    let logger: Logger

    func run() async throws {
        await read(first: true)
        // Until shutdown: a service that returns would stop the server.
        for await _ in store.classPoints.wholeReadsWanted.cancelOnGracefulShutdown() {
            await read(first: false)
        }
    }

    /// Reads the points whole unless they are held and current, and reports it.
    private func read(first: Bool) async {
        let start = ContinuousClock.now
        do {
            if let points = try await store.database.read({ db in try await db.classPoints?.points(db)?.count }) {
                logger.log(level: first ? .info : .debug, "listings' points read",
                           metadata: ["points": "\(points)", "duration": "\(ContinuousClock.now - start)"])
            } else if first {
                logger.notice("listings' points not held (a listing's id is not one the server makes): circles walk with SQL")
            }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("listings' points could not be read; circles walk with SQL", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
