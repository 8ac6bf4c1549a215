import Logging
import Prometheus
import ServiceLifecycle

/// Runs a keyword index build (``KeywordIndexBuild``) after the server starts, a batch per transaction, while searches
/// read the index in place; logs its start, its progress and its end, and shows the listings left in the gauge
/// `classtoday_search_keyword_index_build_remaining_listings` (0 when no build is under way). Stopped or killed, it
/// resumes at the next start where its last batch ended.
struct KeywordIndexBuilder: Service {
    /// The gauge's name: `classtoday_search_keyword_index_build_remaining_listings`.
    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "classtoday", subsystem: "search", metricName: "keyword_index_build_remaining", unitName: "listings",
            helpText: "Listings a keyword index build has still to read, 0 when none is under way")
    }
    /// Batches between two refreshes of the gauge (a count of the listings left).
    static let batchesPerRefresh = 20
    /// Refreshes of the gauge between two log lines.
    static let refreshesPerLog = 10

    /// The build.
    let build: KeywordIndexBuild
    /// The gauge of the listings left.
    let gauge: Gauge
    /// Where progress and failures are reported.
    let logger: Logger

    func run() async throws {
        do {
            try await buildIndex()
        } catch is CancellationError {
            return
        } catch {
            logger.warning("keyword index build failed; restart to resume", metadata: ["error": "\(String(reflecting: error))"])
        }
        // A service that returns would stop the server; this one has nothing left to do until shutdown.
        try? await gracefulShutdown()
    }

    /// Steps the build until it replaced the index, or the server stops.
    private func buildIndex() async throws {
        guard let first = try await build.progress() else { gauge.set(0.0); return }
        logger.info("keyword index build under way; searches read the previous index until it ends",
                    metadata: ["built": "\(first.built)", "remaining": "\(first.remaining)"])
        gauge.set(Double(first.remaining))
        let start = ContinuousClock.now
        var batches = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            switch try await build.step() {
            case .built:
                batches += 1
                guard batches % Self.batchesPerRefresh == 0, let progress = try await build.progress() else { continue }
                gauge.set(Double(progress.remaining))
                if batches % (Self.batchesPerRefresh * Self.refreshesPerLog) == 0 {
                    logger.info("keyword index build in progress", metadata: ["built": "\(progress.built)", "remaining": "\(progress.remaining)"])
                }
            case .finished, .idle:
                gauge.set(0.0)
                logger.info("keyword index built and in use", metadata: ["duration": "\(ContinuousClock.now - start)"])
                return
            }
        }
    }
}
