import ClassTodayCore
import Foundation

/// Stores messages with group commit: sends that arrive while a transaction is being written wait and are
/// written together in the next one, so durable commits (one disk flush each) do not cap chat at one message
/// per flush. Each send returns once its transaction is committed.
struct MessageWriter: Sendable {
    private let queue: BatchQueue<OutgoingMessage, AppendResult>

    /// Creates a writer storing through `repository`, at most `maximumBatch` messages per transaction.
    init(repository: any ChatRepository, maximumBatch: Int = 512) {
        queue = BatchQueue(maximumBatch: maximumBatch) { batch in
            try await repository.append(batch, at: Date()).map { $0.mapError { $0 as any Error } }
        }
    }

    /// Stores `message` (or finds the earlier one with its client id); returns once it is durable.
    func append(_ message: OutgoingMessage) async throws -> AppendResult {
        try await queue.submit(message)
    }
}
