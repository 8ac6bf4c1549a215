import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs another program and reports what it cost: wall time and its peak resident memory (from `wait4`'s resource
/// usage, which `Foundation.Process` does not give).
struct ChildProcess {
    /// What one run cost.
    struct Run {
        /// Wall time from spawn to exit.
        let duration: Duration
        /// Peak resident set size of the child, in KiB.
        let maxResidentKiB: Int
        /// Whether it exited with status 0.
        let succeeded: Bool
    }

    /// Runs `arguments` (the first names the program, by path) with standard output and error discarded.
    static func run(_ arguments: [String]) throws -> Run {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw CocoaError(.executableLoad) }
        }
        let duration = ContinuousClock.now - start
        let exited = (status & 0x7F) == 0
        return Run(duration: duration, maxResidentKiB: usage.ru_maxrss, succeeded: exited && ((status >> 8) & 0xFF) == 0)
    }
}

/// Resident memory of a process, read from `/proc/<pid>/status` (Linux).
enum ResidentMemory {
    /// This process's current resident set size (`VmRSS`), in KiB (0 when unknown).
    static var currentKiB: Int { kiB("VmRSS:", process: "self") ?? 0 }
    /// This process's peak resident set size since its start or the last ``resetPeak()`` (`VmHWM`), in KiB.
    static var peakKiB: Int { kiB("VmHWM:", process: "self") ?? 0 }

    /// Resets this process's peak to its current size (writing 5 to `/proc/self/clear_refs`); false where the
    /// kernel refuses.
    @discardableResult
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// The value of the `name` line (`VmRSS:`, `VmHWM:`) of `process` (a pid or `self`), in KiB.
    static func kiB(_ name: String, process: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}
