import Foundation
import Logging
import Testing
@testable import ClassTodayServer

/// The pool is of a fixed size (``PostgresStore``): it opens `poolSize` connections as it starts and keeps them, so that
/// no lease cancels an idle timer that a release started. Runs only when `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("PostgreSQL pool", .postgresOnly)
struct PostgresPoolTests {
    static let logger = Logger(label: "test.postgres-pool") { _ in SwiftLogNoOpLogHandler() }

    /// The connections to the store's database, its own statement's included.
    static func connections(_ store: PostgresStore) async throws -> Int {
        let statement: SQLStatement = """
            SELECT COUNT(*) AS connections FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
            """
        return Int(try await store.database.rows(statement).first?["connections"] as Int64? ?? 0)
    }

    /// Asks for ``connections(_:)`` until it is `expected` or 10 s have passed, and returns the last count.
    static func connections(_ store: PostgresStore, becoming expected: Int) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        var count = try await connections(store)
        while count != expected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            count = try await connections(store)
        }
        return count
    }

    @Test("a store opens its poolSize connections as it starts, whatever its statements ask, and keeps them after a burst of statements")
    func fixedSize() async throws {
        // The test databases' pools hold 4 (PostgresTestDatabase); migrating first closed another store's.
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        let store = try PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        // One statement at a time needs one connection: the others are open because the pool opened them.
        #expect(try await Self.connections(store, becoming: 4) == 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask { _ = try await store.database.rows("SELECT pg_sleep(0.01)") }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.connections(store) == 4)
    }
}
