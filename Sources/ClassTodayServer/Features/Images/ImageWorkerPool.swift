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

/// At most a fixed number of holders at once; the others wait in arrival order.
public actor ConcurrencyLimit {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates a limit of `width` (at least 1) concurrent holders.
    public init(width: Int) {
        available = max(1, width)
    }

    /// Runs `body` once a place is free.
    public func run<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        if available > 0 {
            available -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { available += 1 } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
