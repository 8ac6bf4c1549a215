import Foundation

/// Another program the benchmark runs and reads the output of (`wrk`, `pgbench`).
enum Program {
    /// A program exited with a status other than 0, or its output was not what was asked for.
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// The output of `program` run with `arguments` (its standard output and error together), once it exited 0.
    static func output(of program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failed(description: "\((program as NSString).lastPathComponent) exited \(process.terminationStatus): \(text)")
        }
        return text
    }

    /// The path of `name` on `PATH`, if it is there.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
