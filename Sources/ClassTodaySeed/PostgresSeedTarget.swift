import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging
import PostgresNIO

/// Where ``Seeder`` writes in a PostgreSQL database: one transaction per batch, through the repositories' row writers.
package struct PostgresSeedTarget: SeedTarget {
    /// A target over an open, migrated store.
    package init(store: PostgresStore) {
        self.store = store
    }

    let store: PostgresStore
    let logger = Logger(label: "classtoday.postgres.seed")

    package func counts() async throws -> (users: Int, classes: Int) {
        let pattern = "%@" + SyntheticData.emailDomain
        let rows = try await store.client.query("""
            SELECT (SELECT COUNT(*) FROM users WHERE email LIKE \(pattern)),
                   (SELECT COUNT(*) FROM classes c JOIN users u ON u.id = c.writer_id WHERE u.email LIKE \(pattern))
            """, logger: logger)
        for try await (users, classes) in rows.decode((Int64, Int64).self) { return (Int(users), Int(classes)) }
        return (0, 0)
    }

    package func seededUserIds() async throws -> [String: String] {
        var ids: [String: String] = [:]
        let rows = try await store.client.query(
            "SELECT email_normalized, id FROM users WHERE email LIKE \("%@" + SyntheticData.emailDomain)", logger: logger)
        for try await (email, id) in rows.decode((String, String).self) { ids[email] = id }
        return ids
    }

    package func insert(users: [User], passwordHash: String) async throws {
        try await store.database.transaction { db in
            for user in users { try await SQLUserRepository.insert(user, passwordHash: passwordHash, db) }
        }
    }

    package func insert(listings: [ClassListing]) async throws {
        let repository = PostgresClassRepository(store: store)
        try await store.client.withTransaction(logger: logger) { connection in
            for listing in listings { try await repository.insertRow(listing, connection) }
        }
    }
}
