import ClassTodayCore
import Foundation
import Logging

extension SQLImageRecordRepository {
    /// The most queued removals one call of ``removeQueuedFiles(now:)`` tries.
    static let removalBatch = 100

    public func removeQueuedFiles(now: Date) async throws -> Int {
        let due: [String] = try await database.rows("""
            SELECT sha256 FROM image_removals WHERE next_attempt_at <= \(now.millisecondsSince1970)
            ORDER BY next_attempt_at LIMIT \(Self.removalBatch)
            """).map { try $0["sha256"] }
        return await removeQueued(due, now: now)
    }

    /// Tries the queued removals of `hashes` now, each in its own transaction, until one fails (the store is likely
    /// down: the rest wait for the next round instead of each waiting for a timeout); returns how many went. A failure
    /// stays queued (and logged): the caller's own work is done whatever the store says.
    func removeQueued(_ hashes: [String], now: Date = Date()) async -> Int {
        var removed = 0
        for hash in hashes {
            do {
                switch try await removeQueued(hash, now: now) {
                case .removed: removed += 1
                case .skipped: continue
                case .failed: return removed
                }
            } catch {
                logger.warning("queued image removal failed", metadata: ["sha256": "\(hash)", "error": "\(error)"])
                return removed
            }
        }
        return removed
    }

    /// What became of one queued removal.
    private enum RemovalOutcome {
        /// The bytes went.
        case removed
        /// Nothing to do: another node did it, or a record names the bytes again.
        case skipped
        /// The store failed; the removal is rescheduled.
        case failed
    }

    /// Removes the stored bytes of `hash` when its removal is still queued and no record names it again (an upload
    /// of the same bytes since): under the hash's lock, so that such an upload waits. Returns whether bytes went; a
    /// failed removal is rescheduled with a delay that doubles with each failure, up to an hour.
    private func removeQueued(_ hash: String, now: Date) async throws -> RemovalOutcome {
        try await database.transaction { [images, logger] db in
            try await Self.lockFile(sha256: hash, db)
            guard let row = try await db.row("SELECT attempts FROM image_removals WHERE sha256 = \(hash) \(raw: db.dialect.lockForUpdate)") else {
                return .skipped
            }
            let named = try await db.row("SELECT 1 FROM images WHERE sha256 = \(hash) LIMIT 1") != nil
            if !named {
                do {
                    try await images.remove(sha256: hash)
                } catch {
                    let attempts: Int = try row["attempts"] + 1
                    let delay = Self.retryDelay(afterFailures: attempts)
                    logger.log(level: attempts >= 10 ? .error : .warning, "image removal failed; it stays queued", metadata: [
                        "sha256": "\(hash)", "attempts": "\(attempts)", "retry_in_seconds": "\(Int(delay))", "error": "\(error)",
                    ])
                    try await db.execute("""
                        UPDATE image_removals SET attempts = \(attempts),
                            next_attempt_at = \(now.addingTimeInterval(delay).millisecondsSince1970),
                            last_error = \(String(String(describing: error).prefix(500)))
                        WHERE sha256 = \(hash)
                        """)
                    return .failed
                }
            }
            try await db.execute("DELETE FROM image_removals WHERE sha256 = \(hash)")
            return named ? .skipped : .removed
        }
    }

    /// The wait before the next try after `failures` failed ones: 5 s, doubling, at most an hour.
    static func retryDelay(afterFailures failures: Int) -> TimeInterval {
        min(3600, 5 * pow(2, Double(min(failures, 20) - 1)))
    }
}
