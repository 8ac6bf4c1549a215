import Logging
import Synchronization

/// The messages logged through a ``RecordingLogHandler``: each with its level and metadata (the logger's and the
/// message's).
final class LogRecords: Sendable {
    /// One logged message.
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    /// What was logged, in order.
    let entries = Mutex<[Entry]>([])

    /// What was logged so far, in order.
    var all: [Entry] { entries.withLock { $0 } }

    /// The levels of what was logged, in order.
    var levels: [Logger.Level] { all.map(\.level) }

    /// A logger labelled `label` recording into these records.
    func logger(label: String) -> Logger {
        Logger(label: label) { _ in RecordingLogHandler(records: self) }
    }
}

/// A log handler appending every message to ``LogRecords``.
struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let entry = LogRecords.Entry(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 })
        records.entries.withLock { $0.append(entry) }
    }
}
