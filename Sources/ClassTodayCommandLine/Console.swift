import Foundation
import Synchronization

/// Output for a person at a terminal: reports on standard output, progress on standard error.
public enum Console {
    /// Writes a line of a report to standard output.
    public static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A progress bar on standard error, redrawn in place on a terminal and every 10% otherwise.
    public final class ProgressBar: Sendable {
        private let label: String
        private let start = ContinuousClock.now
        /// The last tenth of the work drawn on a standard error that is not a terminal.
        private let lastDecile = Mutex(-1)
        private let interactive = isatty(STDERR_FILENO) == 1

        /// A bar for a task named `label`.
        public init(_ label: String) {
            self.label = label
        }

        /// Shows `done` of `total`.
        public func update(_ done: Int, of total: Int) {
            lastDecile.withLock { lastDecile in
                let fraction = total == 0 ? 1 : Double(done) / Double(total)
                let elapsed = (ContinuousClock.now - start).components.seconds
                let width = 30
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                let text = "\(label) [\(bar)] \(Int(fraction * 100))% \(done)/\(total) \(elapsed) s"
                if interactive {
                    FileHandle.standardError.write(Data(("\r" + text + (done >= total ? "\n" : "")).utf8))
                } else if Int(fraction * 10) > lastDecile {
                    lastDecile = Int(fraction * 10)
                    FileHandle.standardError.write(Data((text + "\n").utf8))
                }
            }
        }
    }
}
