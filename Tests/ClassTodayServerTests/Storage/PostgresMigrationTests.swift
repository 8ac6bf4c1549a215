import ClassTodayServer
import Foundation
import Logging
import Testing

/// The PostgreSQL migrator when several nodes start at once.
@Suite("PostgreSQL migrations", .postgresOnly)
struct PostgresMigrationTests {
    /// Checks that nodes migrating one empty database together apply each file once and all succeed.
    @Test("three nodes migrating one database at once: each file applied once, every node succeeds")
    func concurrentNodes() async throws {
        let url = try #require(try PostgresTestDatabase.freshURL())
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let files = try Migration.load(from: TestServer.migrationsDirectory + "/postgres")
        let stores = try (0..<3).map { _ in try PostgresStore.open(url: url, logger: logger) }
        defer { stores.forEach { $0.close() } }
        let applied = try await withThrowingTaskGroup(of: Int.self) { group in
            for store in stores {
                group.addTask { try await store.migrate(files, logger: logger).count }
            }
            return try await group.reduce(0, +)
        }
        #expect(applied == files.count, "each file applied by exactly one node")
        let again = try await stores[0].migrate(files, logger: logger)
        #expect(again.isEmpty)
    }
}
