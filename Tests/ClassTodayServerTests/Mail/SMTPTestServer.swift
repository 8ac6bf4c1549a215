import ClassTodayPushFakes
import Foundation
import Testing
@testable import ClassTodayServer

/// A real SMTP server on loopback for a test: `scripts/smtp-test-server` (aiosmtpd from PyPI, in the virtual
/// environment `.ci/run` makes at `.build/smtp-test-venv`) speaking STARTTLS or implicit TLS with a certificate from a
/// fresh ``TestCertificateAuthority``, requiring AUTH, and writing each mail it accepts, with what Python's `email`
/// package decodes from it, where ``mails()`` reads it.
struct SMTPTestServer: Sendable {
    /// The Python with aiosmtpd: `CLASSTODAY_TEST_SMTP_PYTHON`, or the virtual environment under `.build`.
    static let python = TestPython.interpreter(variable: "CLASSTODAY_TEST_SMTP_PYTHON", venv: "smtp-test-venv", importing: "aiosmtpd")

    /// Whether the tests that need the server can run; when not, they are skipped with ``unavailableReason``.
    static var isAvailable: Bool { python != nil }

    /// Why they are skipped.
    static let unavailableReason: Comment = """
        skipped: no Python with aiosmtpd (make one with `python3 -m venv .build/smtp-test-venv && \
        .build/smtp-test-venv/bin/pip install aiosmtpd==1.4.6`, as .ci/run does, or name one in CLASSTODAY_TEST_SMTP_PYTHON)
        """

    /// The user and password the server requires.
    static let user = "classtoday"
    static let password = "smtp-pässword"

    /// The port it listens on, on 127.0.0.1.
    let port: Int
    /// STARTTLS or implicit TLS.
    let security: SMTPSecurity
    /// Where it writes mails, and the CA file that signed its certificate.
    let folder: String

    /// Runs `body` with a server: `refuse` answers DATA with that code (after `refuseFirst` tries, all of them when 0);
    /// `authMechanism` leaves only that AUTH mechanism offered.
    static func run<Value: Sendable>(
        security: SMTPSecurity = .starttls, refuse: Int = 0, refuseFirst: Int = 0, authMechanism: String? = nil,
        _ body: @Sendable (SMTPTestServer) async throws -> Value
    ) async throws -> Value {
        let python = try #require(python)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let authority = try TestCertificateAuthority()
        try authority.caPEM.write(toFile: folder + "/ca.pem", atomically: true, encoding: .utf8)
        try authority.serverCertificatePEM.write(toFile: folder + "/server.pem", atomically: true, encoding: .utf8)
        try authority.serverKeyPEM.write(toFile: folder + "/server-key.pem", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        var arguments = [TestServer.repositoryRoot.appendingPathComponent("scripts/smtp-test-server").path,
                         "--out", folder + "/out", "--cert", folder + "/server.pem", "--key", folder + "/server-key.pem",
                         "--tls", security.rawValue, "--user", user, "--password", password,
                         "--refuse", "\(refuse)", "--refuse-first", "\(refuseFirst)"]
        if let authMechanism { arguments += ["--auth-mechanism", authMechanism] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            // SIGKILL: the test process may block SIGTERM in the thread that started it, and a child inherits that.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(ready.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
                                "the SMTP test server did not start: \(ready)")
        return try await body(SMTPTestServer(port: port, security: security, folder: folder))
    }

    /// Points `configuration` at the server, trusting its CA, with quick polls and retries.
    func configure(_ configuration: inout AppConfiguration) {
        configuration.mail.smtpHost = "127.0.0.1"
        configuration.mail.smtpPort = port
        configuration.mail.security = security
        configuration.mail.user = Self.user
        configuration.mail.password = Self.password
        configuration.mail.fromAddress = "no-reply@classtoday.test"
        configuration.mail.trustedCAPath = folder + "/ca.pem"
        configuration.mail.publicBaseURL = "https://classtoday.test"
        configuration.mail.pollInterval = .milliseconds(50)
        configuration.mail.retryBase = .milliseconds(50)
        configuration.mail.retryMaximum = .milliseconds(200)
        configuration.mail.timeout = .seconds(10)
    }

    /// The mails delivered so far, in order.
    func mails() throws -> [DeliveredMail] {
        let out = folder + "/out"
        return try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".json") }.sorted().map { name in
            try JSONDecoder().decode(DeliveredMail.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/" + name)))
        }
    }

    /// Waits until at least `count` mails arrived and returns them all.
    func waitForMails(_ count: Int) async throws -> [DeliveredMail] {
        await eventually { ((try? mails().count) ?? 0) >= count }
        let delivered = try mails()
        try #require(delivered.count >= count, "\(delivered.count) of \(count) mails arrived")
        return delivered
    }

    /// How many times a DATA was answered (accepted or refused).
    func tries() -> Int {
        (try? String(contentsOfFile: folder + "/out/tries", encoding: .utf8)).flatMap { Int($0) } ?? 0
    }
}

/// A mail as the test server received it, decoded by Python's `email` package with `policy.default`.
struct DeliveredMail: Decodable, Sendable {
    let mailFrom: String
    let rcptTos: [String]
    let authenticated: Bool
    let tls: Bool
    let subject: String
    let from: String
    let to: String
    let messageId: String
    let date: String
    let contentType: String
    let text: String?
    let html: String?
    let longestLine: Int
    let bareLineFeeds: Int
    let defects: [String]

    /// The token in the mail's link (`...#page?token=<token>`), if any.
    var token: String? { (text ?? "").linkToken }
}

extension String {
    /// The value after the first `token=` in the text, up to the first character that cannot be in a token.
    var linkToken: String? {
        guard let range = range(of: "token=") else { return nil }
        let token = self[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return token.isEmpty ? nil : String(token)
    }
}

@Suite("SMTP test server")
struct SMTPTestServerAvailabilityTests {
    @Test("CI has the SMTP test server (CLASSTODAY_TEST_SMTP_REQUIRED=1 turns a skip into a failure)")
    func availableWhenRequired() {
        guard ProcessInfo.processInfo.environment["CLASSTODAY_TEST_SMTP_REQUIRED"] == "1" else { return }
        #expect(SMTPTestServer.isAvailable, SMTPTestServer.unavailableReason)
    }
}
