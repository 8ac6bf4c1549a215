import ClassTodayServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Builds the real application over a fresh temporary data folder with the repository's migrations.
enum TestServer {
    /// The repository's `Migrations` folder.
    static let migrationsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Migrations").path

    /// A configuration for tests: temp folder, cheap bcrypt, generous rate limits, fast commits.
    static func configuration(_ customize: (inout AppConfiguration) -> Void = { _ in }) -> AppConfiguration {
        var configuration = AppConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("classtoday-tests-\(UUID().uuidString)").path
        configuration.migrationsDirectory = migrationsDirectory
        configuration.port = 0
        configuration.bcryptCost = 4
        configuration.rateLimitPerMinute = 100_000
        configuration.authRateLimitPerMinute = 100_000
        configuration.durableCommits = false
        configuration.logLevel = .warning
        customize(&configuration)
        return configuration
    }

    /// Runs `body` against the application routed in memory.
    static func withRouter<Value>(
        configure customize: (inout AppConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let configuration = configuration(customize)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let app = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        return try await app.test(.router, body)
    }
}

/// JSON helpers for request and response bodies.
extension TestClientProtocol {
    /// Sends `json` (any JSON-serialisable value) with an optional bearer token.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: Any? = nil, token: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }

    /// Signs up a fresh user and returns its token and id.
    func signup(email: String = "user-\(UUID().uuidString.prefix(8))@example.com", password: String = "correct horse",
                nickname: String = "테스터") async throws -> (token: String, id: String) {
        let response = try await send(.post, "/v1/auth/signup", json: ["email": email, "password": password, "nickname": nickname])
        #expect(response.status == .created)
        let json = try response.jsonObject()
        let user = try #require(json["user"] as? [String: Any])
        return (try #require(json["token"] as? String), try #require(user["id"] as? String))
    }
}

extension TestResponse {
    /// The body parsed as a JSON object.
    func jsonObject() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
    }

    /// The body parsed as a problem document, after checking the content type and status agree.
    func problem() throws -> [String: Any] {
        #expect(headers[.contentType] == "application/problem+json")
        let json = try jsonObject()
        #expect(json["status"] as? Int == Int(status.code))
        #expect(json["type"] is String)
        #expect(json["title"] is String)
        return json
    }

    /// The `field` names of a validation problem.
    func problemFields() throws -> [String] {
        let errors = try #require(try problem()["errors"] as? [[String: Any]])
        return errors.compactMap { $0["field"] as? String }
    }
}
