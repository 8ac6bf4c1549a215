import Foundation
import Testing
@testable import ClassTodayServer

/// An S3 stand-in on loopback for a test: `scripts/s3-test-server` (moto's server from PyPI, in the virtual environment
/// `.ci/run` makes at `.build/s3-test-venv`), which checks every request's Signature Version 4 against the keys of an
/// IAM user it made, with one bucket.
struct S3TestServer: Sendable {
    /// The Python with moto: `CLASSTODAY_TEST_S3_PYTHON`, or the virtual environment under `.build`.
    static let python = TestPython.interpreter(variable: "CLASSTODAY_TEST_S3_PYTHON", venv: "s3-test-venv", importing: "moto.moto_server.threaded_moto_server, boto3")

    /// Whether the tests that need the server can run; when not, they are skipped with ``unavailableReason``.
    static var isAvailable: Bool { python != nil }

    /// Why they are skipped.
    static let unavailableReason: Comment = """
        skipped: no Python with moto (make one with `python3 -m venv .build/s3-test-venv && \
        .build/s3-test-venv/bin/pip install 'moto[server]==5.2.5'`, as .ci/run does, or name one in CLASSTODAY_TEST_S3_PYTHON)
        """

    /// The bucket it serves.
    static let bucket = "classtoday-images"

    /// The port it listens on, on 127.0.0.1.
    let port: Int
    /// The keys of the IAM user it knows.
    let credentials: AWSCredentials
    /// The server's process id, for ``stop()``.
    let processIdentifier: Int32

    /// Stops the server now (an outage); it stays stopped.
    func stop() {
        kill(processIdentifier, SIGKILL)
    }

    /// Runs `body` with a fresh server.
    static func run<Value: Sendable>(_ body: @Sendable (S3TestServer) async throws -> Value) async throws -> Value {
        let python = try #require(python)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [TestServer.repositoryRoot.appendingPathComponent("scripts/s3-test-server").path, bucket]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            // SIGKILL: the test process may block SIGTERM in the thread that started it, and a child inherits that.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let fields = ready.split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(fields.count == 4 && fields[0] == "READY", "the S3 test server did not start: \(ready)")
        let server = S3TestServer(
            port: try #require(Int(fields[1])), credentials: AWSCredentials(accessKeyId: fields[2], secretAccessKey: fields[3]),
            processIdentifier: process.processIdentifier)
        return try await body(server)
    }

    /// Settings for its bucket, in path-style addressing, keys under `prefix`.
    func settings(prefix: String = "") -> S3Settings {
        var settings = S3Settings()
        settings.bucket = Self.bucket
        settings.endpoint = "http://127.0.0.1:\(port)"
        settings.pathStyle = true
        settings.prefix = prefix
        settings.credentials = credentials
        settings.timeout = .seconds(10)
        return settings
    }

    /// A client of its bucket, to look at what the server stored.
    var client: S3Client { S3Client(settings: settings()) }

    /// Points `configuration` at its bucket.
    func configure(_ configuration: inout AppConfiguration, prefix: String = "") {
        configuration.imageStore.kind = .s3
        configuration.imageStore.s3 = settings(prefix: prefix)
    }
}

@Suite("S3 test server")
struct S3TestServerAvailabilityTests {
    @Test("CI has the S3 test server (CLASSTODAY_TEST_S3_REQUIRED=1 turns a skip into a failure)")
    func availableWhenRequired() {
        guard ProcessInfo.processInfo.environment["CLASSTODAY_TEST_S3_REQUIRED"] == "1" else { return }
        #expect(S3TestServer.isAvailable, S3TestServer.unavailableReason)
    }
}
