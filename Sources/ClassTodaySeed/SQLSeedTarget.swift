import ClassTodayCore
import ClassTodayServer
import Logging

/// Where ``Seeder`` writes, on either backend: one transaction per batch, through the repositories' own row writers.
package struct SQLSeedTarget: SeedTarget {
    let database: any SQLDatabase

    /// A target over a migrated database.
    package init(database: any SQLDatabase) {
        self.database = database
    }

    /// The `LIKE` pattern of seeded users' emails.
    private var seededEmails: String { "%@" + SyntheticData.emailDomain }

    package func counts() async throws -> (users: Int, classes: Int) {
        let row = try await database.row("""
            SELECT (SELECT COUNT(*) FROM users WHERE email LIKE \(seededEmails)) AS users,
                   (SELECT COUNT(*) FROM classes c JOIN users u ON u.id = c.writer_id WHERE u.email LIKE \(seededEmails)) AS classes
            """)
        return (try row?["users"] ?? 0, try row?["classes"] ?? 0)
    }

    package func seededUserIds() async throws -> [String: String] {
        let rows = try await database.rows("SELECT email_normalized, id FROM users WHERE email LIKE \(seededEmails)")
        return try Dictionary(rows.map { (try $0["email_normalized"], try $0["id"]) }, uniquingKeysWith: { first, _ in first })
    }

    package func insert(users: [User], passwordHash: String) async throws {
        try await database.transaction { db in
            for user in users { try await SQLUserRepository.insert(user, passwordHash: passwordHash, db) }
        }
    }

    package func upgradeKeywordIndex(logger: Logger) async throws {
        try await (database as? SQLiteDatabase)?.finishKeywordIndexBuild(logger: logger)
        try await KeywordIndexUpgrade(classes: SQLClassRepository(database: database), logger: logger).upgrade()
    }

    package func insert(listings: [ClassListing]) async throws {
        try await database.transaction { db in
            for listing in listings { try await SQLClassRepository.insert(listing, db) }
        }
    }
}
