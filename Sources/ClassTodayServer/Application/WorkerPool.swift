import Foundation
import NIOPosix

/// Threads for one kind of CPU-bound work, apart from the event loops and from the file I/O of
/// `NIOThreadPool.singleton`, so that a burst of one kind never queues another: a run of uploads does not hold up
/// sign-ins, nor a run of sign-ins the uploads. Each pool lives as long as the process.
public struct WorkerPool: Sendable {
    private let threads: NIOThreadPool

    /// A pool of one thread per core, at least two.
    private init() {
        threads = NIOThreadPool(numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        threads.start()
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    public func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await threads.runIfActive(body)
    }

    /// Image decoding and encoding. How many renders run at once is bounded by each ``ImageVariantMaker``'s
    /// ``ConcurrencyLimit``.
    public static let images = WorkerPool()

    /// bcrypt, for sign-ups, sign-ins and account deletions. A hash at the default cost takes a core for about a
    /// quarter of a second.
    static let passwords = WorkerPool()
}
