import ClassTodayCore
import Foundation
import Logging
import Synchronization

/// Stores messages with group commit: sends that arrive while a transaction is being written wait and are
/// written together in the next one, so durable commits (one disk flush each) do not cap chat at one message
/// per flush. Each send returns once its transaction is committed.
final class MessageWriter: Sendable {
    private struct Pending {
        let message: OutgoingMessage
        let continuation: CheckedContinuation<AppendResult, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var running = false
    }

    private let repository: any ChatRepository
    private let maximumBatch: Int
    private let state = Mutex(State())

    /// Creates a writer storing through `repository`, at most `maximumBatch` messages per transaction.
    init(repository: any ChatRepository, maximumBatch: Int = 512) {
        self.repository = repository
        self.maximumBatch = maximumBatch
    }

    /// Stores `message` (or finds the earlier one with its client id); returns once it is durable.
    func append(_ message: OutgoingMessage) async throws -> AppendResult {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriter = state.withLock { state in
                state.pending.append(Pending(message: message, continuation: continuation))
                defer { state.running = true }
                return !state.running
            }
            if startsWriter {
                Task { await self.drain() }
            }
        }
    }

    /// Writes batches until nothing is pending.
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
                let results = try await repository.append(batch.map(\.message), at: Date())
                for (pending, result) in zip(batch, results) {
                    pending.continuation.resume(with: result.mapError { $0 as any Error })
                }
            } catch {
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }
}
