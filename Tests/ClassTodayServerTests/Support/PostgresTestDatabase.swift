import ClassTodayServer
import Foundation
import Logging
import Testing

/// Fresh PostgreSQL databases for tests, when `CLASSTODAY_TEST_DATABASE_URL` names a server (CI starts a throwaway
/// one with `scripts/throwaway-postgres`). Each call creates a new empty database on that server with `psql`, so
/// tests never see each other's rows; the throwaway cluster is deleted as a whole afterwards.
enum PostgresTestDatabase {
    /// The administrative URL tests were given, or nil: then tests run on SQLite only.
    static var serverURL: String? {
        ProcessInfo.processInfo.environment["CLASSTODAY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The URL of a new empty database on ``serverURL`` (`sslmode=disable`: the server is on loopback; a pool of 4), or nil
    /// when no server is configured.
    static func freshURL() throws -> String? {
        guard let serverURL, var components = URLComponents(string: serverURL) else { return nil }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", serverURL, "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \(name)"]
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "psql could not create a test database"])
        }
        components.path = "/" + name
        // Tests run in parallel, each with its own pool: keep pools small.
        components.queryItems = [URLQueryItem(name: "sslmode", value: "disable"), URLQueryItem(name: "poolSize", value: "4")]
        return components.string
    }

    /// The URL of a new database holding every PostgreSQL migration, applied by ``PostgresStore/migrate(_:logger:)``.
    static func freshMigratedURL() async throws -> String? {
        guard let url = try freshURL() else { return nil }
        let logger = Logger(label: "test.postgres") { _ in SwiftLogNoOpLogHandler() }
        let store = try PostgresStore.open(url: url, logger: logger)
        defer { store.close() }
        try await store.migrate(try Migration.load(from: TestServer.migrationsDirectory + "/postgres"), logger: logger)
        return url
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite only when `CLASSTODAY_TEST_DATABASE_URL` names a PostgreSQL server (see ``PostgresTestDatabase``).
    static var postgresOnly: Self {
        .enabled(if: PostgresTestDatabase.serverURL != nil, "needs CLASSTODAY_TEST_DATABASE_URL")
    }

    /// Leaves out of a PostgreSQL run a suite whose tests open their own SQLite database whatever the environment:
    /// the run without `CLASSTODAY_TEST_DATABASE_URL` ran them already (CI runs the tests on SQLite, then on PostgreSQL).
    static var sqliteOnly: Self {
        .disabled(if: PostgresTestDatabase.serverURL != nil, "opens its own SQLite database: the SQLite run covers it")
    }
}
