import ClassTodayClient
import Foundation
import NIOCore
import NIOPosix
import OpenAPIRuntime

/// The real `classtoday` binary serving on a free loopback port over a temporary data folder.
///
/// The binary is `CLASSTODAY_BINARY`, else `../../.build/debug/classtoday` from this package (the server's own
/// debug build in the same repository).
actor ServerProcess {
    /// `http://127.0.0.1:PORT`.
    nonisolated let baseURL: URL
    /// The data folder, kept across restarts.
    nonisolated let dataDirectory: URL
    private let port: Int
    private let binary: URL
    private var process: Process?

    /// Starts a server on a new temporary data folder and waits until it answers `/health`.
    static func start() async throws -> ServerProcess {
        let server = try ServerProcess()
        try await server.launch()
        return server
    }

    private init() throws {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        if let path = ProcessInfo.processInfo.environment["CLASSTODAY_BINARY"], !path.isEmpty {
            binary = URL(fileURLWithPath: path)
        } else {
            binary = packageRoot.appendingPathComponent("../../.build/debug/classtoday").standardizedFileURL
        }
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw ServerProcessError.missingBinary(binary.path) }
        repositoryRoot = packageRoot.appendingPathComponent("../..").standardizedFileURL
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        port = try Self.freePort()
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    private let repositoryRoot: URL

    /// Starts the binary on the same port and data folder and waits for `/health`.
    func launch() async throws {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--data-dir", dataDirectory.path, "--rate-limit", "0"]
            + (try repositoryFlags())
        var environment = ProcessInfo.processInfo.environment
        environment["CLASSTODAY_BCRYPT_COST"] = "4"
        environment["CLASSTODAY_AUTH_RATE_LIMIT"] = "0"
        environment["CLASSTODAY_LOG_LEVEL"] = "warning"
        process.environment = environment
        let log = dataDirectory.appendingPathComponent("server.log")
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        let client = Client(serverURL: baseURL, transport: ClassTodayAPI.defaultTransport())
        for _ in 0..<300 {
            if case .ok = try? await client.health() { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServerProcessError.notStarted(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// Stops the server with SIGTERM and returns its exit status.
    @discardableResult
    func terminate() async throws -> Int32 {
        guard let process else { return 0 }
        process.terminate()
        for _ in 0..<300 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
        return process.terminationStatus
    }

    /// Stops the server and removes its data folder.
    func shutdown() async {
        _ = try? await terminate()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The flags that point an older binary at the repository's migrations and word list, when it still takes them and
    /// the repository still has them there (a newer binary carries both in its resource bundle).
    private func repositoryFlags() throws -> [String] {
        let help = Process()
        help.executableURL = binary
        help.arguments = ["serve", "--help"]
        let pipe = Pipe()
        help.standardOutput = pipe
        help.standardError = pipe
        try help.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        help.waitUntilExit()
        var flags: [String] = []
        let migrations = repositoryRoot.appendingPathComponent("Migrations").path
        let bannedWords = repositoryRoot.appendingPathComponent("config/banned-words.txt").path
        if text.contains("--migrations-dir"), FileManager.default.fileExists(atPath: migrations) { flags += ["--migrations-dir", migrations] }
        if text.contains("--banned-words"), FileManager.default.fileExists(atPath: bannedWords) { flags += ["--banned-words", bannedWords] }
        return flags
    }

    /// A loopback port that was free a moment ago.
    private static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0).wait()
        defer { try? channel.close().wait() }
        guard let port = channel.localAddress?.port else { throw ServerProcessError.noPort }
        return port
    }
}

/// Why a test server is not available.
enum ServerProcessError: Error, CustomStringConvertible {
    case missingBinary(String)
    case notStarted(log: String)
    case noPort

    var description: String {
        switch self {
        case .missingBinary(let path): "no classtoday binary at \(path): build the server (swift build) or set CLASSTODAY_BINARY"
        case .notStarted(let log): "the server did not answer /health; its log:\n\(log)"
        case .noPort: "no free loopback port"
        }
    }
}
