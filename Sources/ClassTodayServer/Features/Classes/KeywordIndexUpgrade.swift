import ClassTodayCore
import Logging
import ServiceLifecycle

/// Brings listings indexed by an earlier ``SearchTokenizer/indexVersion`` up to date in the background, a batch per
/// transaction, so that starting a server over a large database never waits for it (old tokens are a subset of the
/// new ones: searches stay correct meanwhile). Several nodes may run it at once; the batches then take turns. Seeding
/// runs it too (``upgrade()``), before it writes, so that a server started on a seeded database has nothing to redo.
package struct KeywordIndexUpgrade: Service {
    /// Listings re-indexed per transaction: short enough that writers never wait long.
    static let batchSize = 500

    /// Where the listings are.
    let classes: any ClassRepository
    /// Where progress and failures are reported.
    let logger: Logger

    /// An upgrade of `classes`' listings, reported to `logger`.
    package init(classes: any ClassRepository, logger: Logger) {
        (self.classes, self.logger) = (classes, logger)
    }

    package func run() async throws {
        do {
            try await upgrade()
        } catch is CancellationError {
            return
        } catch {
            logger.warning("keyword index upgrade failed; restart to resume", metadata: ["error": "\(String(reflecting: error))"])
        }
        // A service that returns would stop the server; this one has nothing left to do until shutdown.
        try? await gracefulShutdown()
    }

    /// Re-indexes until nothing is left; returns how many listings it re-indexed.
    @discardableResult
    package func upgrade() async throws -> Int {
        var total = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let count = try await classes.upgradeKeywordIndex(batchSize: Self.batchSize)
            guard count > 0 else { break }
            total += count
            if total % (Self.batchSize * 100) == 0 {
                logger.info("keyword index upgrade in progress", metadata: ["listings": "\(total)"])
            }
        }
        if total > 0 {
            logger.info("keyword index upgraded", metadata: ["listings": "\(total)", "version": "\(SearchTokenizer.indexVersion)"])
        }
        return total
    }
}
