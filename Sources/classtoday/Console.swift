import Foundation

/// Output for a person at a terminal: reports on standard output, progress on standard error.
enum Console {
    /// Writes a line of a report to standard output.
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A progress bar on standard error, redrawn in place on a terminal and every 10% otherwise.
    final class ProgressBar: @unchecked Sendable {
        private let label: String
        private let start = ContinuousClock.now
        private let lock = NSLock()
        private var lastDecile = -1
        private let interactive = isatty(STDERR_FILENO) == 1

        /// A bar for a task named `label`.
        init(_ label: String) {
            self.label = label
        }

        /// Shows `done` of `total`.
        func update(_ done: Int, of total: Int) {
            lock.lock()
            defer { lock.unlock() }
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
