import ClassTodayCore
import ClassTodayServer
import Foundation
import GRDB

/// Where ``Seeder`` writes in an SQLite database: one transaction per batch, through the repositories' row writers.
package struct SQLiteSeedTarget: SeedTarget {
    let writer: DatabasePool
    let database: SQLiteDatabase

    /// A target over an open, migrated store.
    package init(store: SQLiteStore) {
        self.writer = store.writer
        self.database = store.database
    }

    package func counts() async throws -> (users: Int, classes: Int) {
        try await writer.read { db in
            let users = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE email LIKE ?", arguments: ["%@" + SyntheticData.emailDomain]) ?? 0
            let classes = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM classes c JOIN users u ON u.id = c.writer_id WHERE u.email LIKE ?
                """, arguments: ["%@" + SyntheticData.emailDomain]) ?? 0
            return (users, classes)
        }
    }

    package func seededUserIds() async throws -> [String: String] {
        try await writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(
                db, sql: "SELECT id, email_normalized FROM users WHERE email LIKE ?", arguments: ["%@" + SyntheticData.emailDomain]
            ).map { ($0["email_normalized"] as String, $0["id"] as String) })
        }
    }

    package func insert(users: [User], passwordHash: String) async throws {
        try await database.transaction { db in
            for user in users { try await SQLUserRepository.insert(user, passwordHash: passwordHash, db) }
        }
    }

    package func insert(listings: [ClassListing]) async throws {
        try await writer.write { db in
            for listing in listings { try SQLiteClassRepository.insertRow(listing, db) }
        }
    }
}
