import Foundation
import NIOPosix

/// The threads image decoding and encoding run on: a process-wide pool of its own, so that a burst of resizing
/// never blocks the event loops or the file I/O of `NIOThreadPool.singleton`. Like that pool it lives as long as the
/// process. How many jobs run at once is bounded by each ``ImageVariantMaker``'s ``ConcurrencyLimit``.
public enum ImageWorkerPool {
    /// The pool: one thread per core, at least two.
    public static let shared: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    /// Runs `body` on one of the pool's threads and returns its result.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await shared.runIfActive(body)
    }
}
