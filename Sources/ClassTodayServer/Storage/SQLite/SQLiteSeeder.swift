import ClassTodayCore
import Foundation
import GRDB

/// Where ``Seeder`` writes in an SQLite database: one transaction per batch, through the repositories' row writers.
struct SQLiteSeedTarget: SeedTarget {
    let writer: DatabasePool

    /// A target over an open, migrated store.
    init(store: SQLiteStore) {
        self.writer = store.writer
    }

    func counts() async throws -> (users: Int, classes: Int) {
        try await writer.read { db in
            let users = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE email LIKE ?", arguments: ["%@" + SyntheticData.emailDomain]) ?? 0
            let classes = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM classes c JOIN users u ON u.id = c.writer_id WHERE u.email LIKE ?
                """, arguments: ["%@" + SyntheticData.emailDomain]) ?? 0
            return (users, classes)
        }
    }

    func seededUserIds() async throws -> [String: String] {
        try await writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(
                db, sql: "SELECT id, email_normalized FROM users WHERE email LIKE ?", arguments: ["%@" + SyntheticData.emailDomain]
            ).map { ($0["email_normalized"] as String, $0["id"] as String) })
        }
    }

    func insert(users: [User], passwordHash: String) async throws {
        try await SQLiteDatabase(pool: writer).transaction { db in
            for user in users { try await SQLUserRepository.insert(user, passwordHash: passwordHash, db) }
        }
    }

    func insert(listings: [ClassListing]) async throws {
        try await writer.write { db in
            for listing in listings { try SQLiteClassRepository.insertRow(listing, db) }
        }
    }
}
