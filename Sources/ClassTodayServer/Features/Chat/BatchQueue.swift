import Synchronization

/// Processes items in batches: items submitted while a batch is being processed wait and are processed together in
/// the next one, so a round trip or a disk flush per batch does not cap throughput at one item per round trip.
/// Batches run one at a time, in submission order; each submitter resumes with its own item's outcome.
final class BatchQueue<Item: Sendable, Output: Sendable>: Sendable {
    /// Processes one batch; returns one outcome per item, in order, or throws to fail the whole batch.
    typealias Process = @Sendable ([Item]) async throws -> [Result<Output, any Error>]

    private struct Pending {
        let item: Item
        let continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var running = false
    }

    private let maximumBatch: Int
    private let process: Process
    private let state = Mutex(State())

    /// Creates a queue that hands at most `maximumBatch` items at a time to `process`.
    init(maximumBatch: Int, process: @escaping Process) {
        precondition(maximumBatch > 0, "a batch holds at least one item")
        self.maximumBatch = maximumBatch
        self.process = process
    }

    /// Submits `item`; returns its outcome once its batch has been processed.
    func submit(_ item: Item) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startsDrain = state.withLock { state in
                state.pending.append(Pending(item: item, continuation: continuation))
                defer { state.running = true }
                return !state.running
            }
            if startsDrain {
                Task { await self.drain() }
            }
        }
    }

    /// Processes batches until nothing is pending.
    private func drain() async {
        while true {
            let batch: [Pending] = state.withLock { state in
                let batch = Array(state.pending.prefix(maximumBatch))
                state.pending.removeFirst(batch.count)
                if batch.isEmpty { state.running = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let outcomes = try await process(batch.map(\.item))
                precondition(outcomes.count == batch.count, "a batch returns one outcome per item")
                for (pending, outcome) in zip(batch, outcomes) {
                    pending.continuation.resume(with: outcome)
                }
            } catch {
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }
}
