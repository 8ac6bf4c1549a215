import CMalloc
import Foundation

/// Runs another program and reports what it cost: its wall time and peak resident memory.
///
/// The program is started by a small Python helper that forks and waits for it, because a child this process spawns
/// directly (`posix_spawn` shares the parent's memory until `exec`) reports this process's resident size as its own
/// peak in `wait4`'s resource usage.
struct ChildProcess {
    /// What one run cost.
    struct Run {
        /// Wall time from fork to exit, measured by the helper.
        let duration: Duration
        /// Peak resident set size of the program, in KiB.
        let maxResidentKiB: Int
        /// Whether it exited with status 0.
        let succeeded: Bool
    }

    /// The helper: forks, execs the arguments with output discarded, waits, prints seconds, peak KiB and status.
    private static let helper = """
        import os, sys, time
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1); os.dup2(null, 2)
            try:
                os.execv(sys.argv[1], sys.argv[1:])
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        print(time.monotonic() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
        """

    /// The Python interpreter that runs the helper.
    static let python = "/usr/bin/python3"

    /// Runs `arguments` (the first names the program, by path).
    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", helper] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count == 3, let seconds = Double(fields[0]), let peak = Int(fields[1]), let status = Int(fields[2]) else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: arguments.first ?? ""])
        }
        return Run(duration: .nanoseconds(Int64(seconds * 1e9)), maxResidentKiB: peak, succeeded: status == 0)
    }
}

/// Resident memory of a process, read from `/proc/<pid>/status` (Linux).
enum ResidentMemory {
    /// This process's current resident set size (`VmRSS`), in KiB (0 when unknown).
    static var currentKiB: Int { kiB("VmRSS:", process: "self") ?? 0 }
    /// This process's peak resident set size since its start or the last ``resetPeak()`` (`VmHWM`), in KiB.
    static var peakKiB: Int { kiB("VmHWM:", process: "self") ?? 0 }

    /// Returns freed heap memory to the system, then resets this process's peak to its current size (writing 5 to
    /// `/proc/self/clear_refs`); false where the kernel refuses.
    @discardableResult
    static func resetPeak() -> Bool {
        malloc_trim(0)
        return (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
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
