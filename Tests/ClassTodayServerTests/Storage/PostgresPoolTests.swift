import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
@testable import ClassTodayServer

/// The pool is of a fixed size (``PostgresStore``): it opens `poolSize` connections as it starts and keeps them, so that
/// no lease cancels an idle timer that a release started; and it sends no pings, the server probing its connections
/// with TCP keepalives instead. Runs only when `CLASSTODAY_TEST_DATABASE_URL` names a server.
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

    @Test("the server probes each connection of the pool with TCP keepalives, in place of the pool's pings")
    func keepalivesFromTheServer() async throws {
        let url = try #require(try PostgresTestDatabase.freshURL())
        let store = try PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        let statement: SQLStatement = """
            SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS interval,
                current_setting('tcp_keepalives_count') AS count
            """
        let row = try #require(try await store.database.rows(statement).first)
        #expect(try row["idle"] as String == "30")
        #expect(try row["interval"] as String == "10")
        #expect(try row["count"] as String == "3")
        // The chat bus's listener, a connection of its own.
        let listener = try await PostgresConnection.connect(configuration: store.connectionConfiguration, id: 1, logger: Self.logger)
        defer { Task { try? await listener.close() } }
        let settings = try await listener.query("SELECT current_setting('tcp_keepalives_idle'), current_setting('tcp_keepalives_count')", logger: Self.logger)
        for try await (idle, count) in settings.decode((String, String).self) {
            #expect(idle == "30" && count == "3")
        }
    }

    @Test("connections the server ends are replaced, and the statements after them succeed")
    func endedConnectionsReplaced() async throws {
        let url = try #require(try PostgresTestDatabase.freshURL())
        let store = try PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        #expect(try await Self.connections(store, becoming: 4) == 4)
        let before = try await Self.backends(store)
        let ended: SQLStatement = """
            SELECT COUNT(*) AS ended FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()) t
            """
        #expect(try await store.database.rows(ended).first?["ended"] as Int64? == 3)
        // The pool hears of each end as its socket closes, and opens another connection in its place.
        // A statement may meet a connection whose end the pool has not heard of yet, and fail: it is asked again. An
        // ended backend stays listed until it has exited.
        let pids = Mutex<Set<Int64>>([])
        _ = await eventually(timeout: .seconds(10)) {
            let read = (try? await Self.backends(store)) ?? []
            pids.withLock { $0 = read }
            return read.count == 4 && read.intersection(before).count == 1
        }
        let replaced = pids.withLock { $0 }
        #expect(replaced.count == 4)
        #expect(replaced.intersection(before).count == 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask { _ = try await store.database.rows("SELECT pg_sleep(0.01)") }
            }
            try await group.waitForAll()
        }
    }

    /// The process ids of the backends serving the store's database.
    static func backends(_ store: PostgresStore) async throws -> Set<Int64> {
        let statement: SQLStatement = """
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
            """
        return Set(try await store.database.rows(statement).map { try $0["pid"] as Int64 })
    }
}
