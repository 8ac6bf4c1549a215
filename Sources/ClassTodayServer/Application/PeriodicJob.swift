import AsyncAlgorithms
import Logging
import ServiceLifecycle

/// A background job run every `interval` until the server shuts down; a failed run is logged, not fatal.
struct PeriodicJob: Service {
    /// A name for the logs.
    let name: String
    /// Time between runs.
    let interval: Duration
    /// Where failures are reported.
    let logger: Logger
    /// The work of one run.
    let work: @Sendable () async throws -> Void

    init(name: String, interval: Duration, logger: Logger, work: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.logger = logger
        self.work = work
    }

    func run() async throws {
        for await _ in AsyncTimerSequence(interval: interval, clock: .continuous).cancelOnGracefulShutdown() {
            do {
                try await work()
            } catch {
                logger.warning("background job failed", metadata: ["job": "\(name)", "error": "\(String(reflecting: error))"])
            }
        }
    }
}
