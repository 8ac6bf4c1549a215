import AsyncHTTPClient
import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Whether `POST /v1/auth/password-reset` tells, by its time, which addresses have an account: the server answers
/// requests for addresses that have one and for addresses that do not, interleaved in a random order over one
/// keep-alive connection pool, and the report compares the medians (the issue asks for them within 20 %).
public struct PasswordResetBenchmark: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// Requests per kind (known and unknown addresses), after the warm-up.
        public var requests = 500
        /// Accounts to ask for (each asked for in turn).
        public var accounts = 50

        /// The defaults.
        public init() {}
    }

    private let options: Options
    private let configuration: AppConfiguration
    private let logger: Logger

    /// A benchmark of `options` over a throwaway SQLite database in `configuration`'s data folder.
    public init(_ options: Options, configuration: AppConfiguration, logger: Logger) {
        (self.options, self.configuration, self.logger) = (options, configuration, logger)
    }

    /// Runs it and returns the report's lines.
    public func run(progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [String] {
        let folder = (configuration.dataDirectory as NSString).appendingPathComponent("bench-reset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = configuration
        configuration.bcryptCost = 4
        configuration.accounts.mailsPerAddressPerHour = 0
        configuration.accounts.resetRequestsPerClientPerHour = 0
        configuration.mail.smtpHost = nil
        configuration.mail.folder = (folder as NSString).appendingPathComponent("mail")
        let (requests, accounts) = (options.requests, options.accounts)
        return try await SearchBenchmark.HTTPPeer.serving(
            "sqlite://" + (folder as NSString).appendingPathComponent("reset.sqlite"), configuration: configuration, logger: logger
        ) { server in
            var known: [String] = []
            for index in 0..<accounts {
                let email = "bench-reset-\(index)@bench.classtoday.app"
                _ = try await server.post("/v1/auth/signup", json: ["email": email, "password": "bench password", "nickname": "벤치\(index)"])
                known.append(email)
            }
            var generator = SystemRandomNumberGenerator()
            func unknown() -> String { "nobody-\(UInt64.random(in: 0 ... .max, using: &generator))@bench.classtoday.app" }
            for index in 0..<50 {
                _ = try await server.post("/v1/auth/password-reset", json: ["email": known[index % known.count]])
                _ = try await server.post("/v1/auth/password-reset", json: ["email": unknown()])
            }
            var (knownSample, unknownSample) = (LatencySample(), LatencySample())
            for index in 0..<requests {
                let knownFirst = Bool.random(using: &generator)
                for isKnown in knownFirst ? [true, false] : [false, true] {
                    let email = isKnown ? known[index % known.count] : unknown()
                    let elapsed = try await server.post("/v1/auth/password-reset", json: ["email": email], expecting: 202)
                    if isKnown { knownSample.record(elapsed) } else { unknownSample.record(elapsed) }
                }
                progress(index + 1, requests)
            }
            let difference = (knownSample.median - unknownSample.median) / unknownSample.median * 100
            func row(_ name: String, _ sample: LatencySample) -> String {
                name.padding(toLength: 22, withPad: " ", startingAt: 0)
                    + String(format: "median %.3f ms   p90 %.3f ms   p99 %.3f ms", sample.median, sample.percentile(0.9), sample.p99)
            }
            return [
                "POST /v1/auth/password-reset, \(requests) requests per kind, interleaved in random order, over HTTP on loopback (SQLite)",
                row("address with account", knownSample),
                row("address without", unknownSample),
                String(format: "medians differ by %+.1f %% (known vs unknown); the issue's bound is 20 %%", difference),
            ]
        }
    }
}

extension SearchBenchmark.HTTPPeer {
    /// POSTs `json` to `path` and returns the time from sending the request to the body's last byte; throws unless the
    /// status is `expecting` (any 2xx when nil).
    @discardableResult
    func post(_ path: String, json: [String: String], expecting expected: Int? = nil) async throws -> Duration {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        let start = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let elapsed = ContinuousClock.now - start
        let status = Int(response.status.code)
        guard expected.map({ $0 == status }) ?? (200..<300).contains(status) else {
            throw UnexpectedStatus(path: path, status: status, body: String(buffer: body))
        }
        return elapsed
    }
}
