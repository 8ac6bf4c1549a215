import Foundation

/// A Python interpreter for a test server from PyPI: the one `variable` names, or the virtual environment `.ci/run`
/// makes at `.build/<venv>`, when it can import `modules`.
enum TestPython {
    /// The first of those interpreters that imports `modules`, nil when none does.
    static func interpreter(variable: String, venv: String, importing modules: String) -> String? {
        let candidates = [ProcessInfo.processInfo.environment[variable],
                          TestServer.repositoryRoot.appendingPathComponent(".build/\(venv)/bin/python3").path].compactMap { $0 }
        return candidates.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: path)
            probe.arguments = ["-c", "import \(modules)"]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { return false }
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        }
    }
}
