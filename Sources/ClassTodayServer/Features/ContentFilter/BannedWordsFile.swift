import ClassTodayCore
import Foundation
import Logging
import Synchronization

/// The banned-words list file and the filter read from it. The file is reread when it changes: on use, at most once
/// per check interval, its modification time and size are compared with those of the last read, so an edit takes
/// effect within the interval on every node, without a restart or a signal. A file that disappears or gets a bad
/// line leaves the last good list in force (and is logged) until it is fixed.
public final class BannedWordsFile: Sendable {
    /// What identifies one version of the file.
    private struct Stamp: Equatable {
        let modified: Date?
        let size: Int?
    }

    private struct State {
        var filter = BannedWordFilter.empty
        /// The version the filter was read from, or that failed last (so a bad file is logged once, not every check);
        /// nil before the first attempt.
        var stamp: Stamp??
        var checkedAt: ContinuousClock.Instant?
    }

    /// The file's path.
    public let path: String
    private let checkInterval: Duration
    private let logger: Logger
    private let state = Mutex(State())

    /// A list file, not read yet: ``load()`` reads it, or the first use of ``filter``.
    public init(path: String, checkInterval: Duration, logger: Logger) {
        self.path = path
        self.checkInterval = checkInterval
        self.logger = logger
    }

    /// Reads the file now; throws when it cannot be read or has a bad line (so that a server does not start without
    /// its list).
    public func load() throws {
        let stamp = try currentStamp()
        let filter = try read()
        state.withLock { $0 = State(filter: filter, stamp: .some(stamp), checkedAt: .now) }
    }

    /// The filter of the file's current list, rereading the file first if it is time to check and it has changed.
    public var filter: BannedWordFilter {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            if let checkedAt = state.checkedAt, now - checkedAt < checkInterval { return false }
            state.checkedAt = now
            return true
        }
        if due {
            reloadIfChanged()
        }
        return state.withLock { $0.filter }
    }

    private func reloadIfChanged() {
        let stamp = try? currentStamp()
        let changed = state.withLock { state in
            guard state.stamp != .some(stamp) else { return false }
            state.stamp = .some(stamp)
            return true
        }
        guard changed else { return }
        do {
            let filter = try read()
            state.withLock { $0.filter = filter }
            logger.notice("banned words loaded", metadata: ["path": "\(path)", "entries": "\(filter.entries.count)"])
        } catch {
            logger.error("banned words not reloaded; the previous list stays in force",
                         metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    private func read() throws -> BannedWordFilter {
        try BannedWordFilter(parsing: String(contentsOfFile: path, encoding: .utf8))
    }

    private func currentStamp() throws -> Stamp {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return Stamp(modified: attributes[.modificationDate] as? Date, size: (attributes[.size] as? NSNumber)?.intValue)
    }
}
