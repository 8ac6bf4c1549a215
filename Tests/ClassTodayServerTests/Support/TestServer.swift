import ClassTodayServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Builds the real application over a fresh temporary data folder with the built-in migrations and word list.
enum TestServer {
    /// The repository's root folder.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The migrations built into the server's resource bundle.
    static let migrationsDirectory = BuiltInResources.migrationsDirectory

    /// A configuration for tests: temp folder, cheap bcrypt, generous rate limits, fast commits. The database is the
    /// embedded SQLite file unless `CLASSTODAY_TEST_DATABASE_URL` names a PostgreSQL server: then it is a fresh
    /// database there (``PostgresTestDatabase``), and every test using it checks the PostgreSQL repositories.
    /// `sqliteOnly` keeps SQLite for tests of SQLite itself (query plans, pragmas).
    static func configuration(
        sqliteOnly: Bool = false, _ customize: (inout AppConfiguration) -> Void = { _ in }
    ) throws -> AppConfiguration {
        var configuration = AppConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("classtoday-tests-\(UUID().uuidString)").path
        configuration.vipsLibraryPath = TestVips.libraryPath
        configuration.port = 0
        configuration.bcryptCost = 4
        configuration.rateLimitPerMinute = 100_000
        configuration.authRateLimitPerMinute = 100_000
        configuration.durableCommits = false
        configuration.logLevel = .warning
        if !sqliteOnly {
            configuration.databaseURL = try PostgresTestDatabase.freshURL()
        }
        customize(&configuration)
        return configuration
    }

    /// Runs `body` against the application routed in memory.
    static func withRouter<Value>(
        configure customize: (inout AppConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await withApplication(.router, configure: customize, body)
    }

    /// Runs `body` against the application listening on a free loopback port (`client.port`), for tests that need
    /// real sockets.
    static func withLiveServer<Value>(
        configure customize: (inout AppConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await withApplication(.live, configure: customize, body)
    }

    /// Runs `body` with clients of two nodes built over the same fresh database (PostgreSQL: see ``configuration(sqliteOnly:_:)``),
    /// each with its own data folder; `customize` adjusts node 0's and node 1's configurations. `body` also gets the
    /// first node's configuration.
    static func withTwoNodes<Value>(
        _ setup: TestingSetup = .live, configure customize: (_ node: Int, inout AppConfiguration) -> Void = { _, _ in },
        _ body: @Sendable (any TestClientProtocol, any TestClientProtocol, AppConfiguration) async throws -> Value
    ) async throws -> Value {
        let first = try configuration { customize(0, &$0) }
        let second = try configuration { configuration in
            configuration.databaseURL = first.databaseURL
            customize(1, &configuration)
        }
        defer {
            try? FileManager.default.removeItem(atPath: first.dataDirectory)
            try? FileManager.default.removeItem(atPath: second.dataDirectory)
        }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let nodeA = try await buildApplication(first, logger: logger)
        let nodeB = try await buildApplication(second, logger: logger)
        return try await nodeA.runTest(setup) { a in
            try await nodeB.runTest(setup) { b in try await body(a, b, first) }
        }
    }

    private static func withApplication<Value>(
        _ setup: TestingSetup, configure customize: (inout AppConfiguration) -> Void,
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await withEnvironment(setup, configure: customize) { _, client in try await body(client) }
    }

    /// Runs `body` with the opened environment and a client of the application built over it, for tests that reach
    /// past the routes into the repositories or the chat bus.
    static func withEnvironment<Value>(
        _ setup: TestingSetup, configure customize: (inout AppConfiguration) -> Void = { _ in },
        _ body: @Sendable (ServerEnvironment, any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let configuration = try configuration(customize)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let environment = try await ServerEnvironment.open(configuration, logger: logger)
        return try await buildApplication(environment, logger: logger).runTest(setup) { client in try await body(environment, client) }
    }
}

extension ApplicationProtocol {
    /// Runs `test` as HummingbirdTesting's `test(_:_:)` does, except that a test that throws (a failed `#require`)
    /// still stops a live server gracefully before its error is rethrown. HummingbirdTesting cancels a live server
    /// when its test throws, and the cancelled server never finished: the whole test run hung instead of reporting the
    /// failure.
    func runTest<Value>(_ setup: TestingSetup, _ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let outcome = try await self.test(setup) { client in
            do {
                return Result<Value, any Error>.success(try await test(client))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
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

    /// The body decoded as `Value`, one of the response types the server writes, with RFC 3339 dates: a missing
    /// field, or one of another type, fails the test.
    func decoded<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Value.self, from: Data(body.readableBytesView))
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

/// A page of a list as the API writes it (`{items, nextCursor}`), decoded with ``TestResponse/decoded(as:)``.
struct TestPage<Item: Decodable>: Decodable {
    let items: [Item]
    let nextCursor: String?
}

extension TestClientProtocol {
    /// A valid class body, with `overrides` merged in.
    static func classBody(_ overrides: [String: Any] = [:]) -> [String: Any] {
        var body: [String: Any] = [
            "type": "sell", "name": "기타 왕초보 레슨", "description": "신림역 근처에서 기타를 가르쳐요.",
            "days": ["sat", "sun"], "time": "10:00-12:00", "place": "서울 관악구 신림로 1",
            "location": ["lat": 37.4842, "lon": 126.9297], "keywordLocation": "관악구",
            "price": 20000, "priceUnit": "perHour", "subjects": ["hobby"], "targets": ["all"], "capacity": 2,
        ]
        body.merge(overrides) { _, new in new }
        return body
    }

    /// Creates a class as `token`'s user and returns its JSON.
    func createClass(token: String, _ overrides: [String: Any] = [:]) async throws -> [String: Any] {
        let response = try await send(.post, "/v1/classes", json: Self.classBody(overrides), token: token)
        #expect(response.status == .created)
        return try response.jsonObject()
    }

    /// Creates a sell class as `sellerToken`'s user and opens its chat room as `buyerToken`'s user.
    func openRoom(seller sellerToken: String, buyer buyerToken: String) async throws -> (classId: String, roomId: String) {
        let classId = try #require(try await createClass(token: sellerToken)["id"] as? String)
        let room = try await send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyerToken)
        #expect(room.status == .created)
        return (classId, try #require(try room.jsonObject()["id"] as? String))
    }

    /// Uploads raw image bytes as `token`'s user.
    func upload(_ bytes: [UInt8], contentType: String = "image/jpeg", token: String) async throws -> TestResponse {
        try await execute(uri: "/v1/images", method: .post,
                          headers: [.authorization: "Bearer \(token)", .contentType: contentType], body: ByteBuffer(bytes: bytes))
    }

    /// Follows `nextCursor` from `path` and returns every item id, failing if a page repeats an id.
    func walk(_ path: String, token: String? = nil, limit: Int) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            var uri = "\(path)\(separator)limit=\(limit)"
            if let cursor { uri += "&cursor=\(cursor)" }
            let response = try await send(.get, uri, token: token)
            #expect(response.status == .ok)
            let json = try response.jsonObject()
            let items = try #require(json["items"] as? [[String: Any]])
            ids += items.compactMap { $0["id"] as? String }
            cursor = json["nextCursor"] as? String
            #expect((response.headers[.init("Link")!] != nil) == (cursor != nil))
        } while cursor != nil
        return ids
    }
}
