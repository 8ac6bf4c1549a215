import ClassTodayCore
import Foundation
import GRDB

/// Fills an SQLite database with synthetic users and listings (``SyntheticData``), in large transactions through
/// the same row writers the repositories use, so that seeded rows are indistinguishable from real ones.
public struct SQLiteSeeder: Sendable {
    private let writer: DatabasePool

    /// Creates a seeder over an open, migrated store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    /// How many seeded users and listings the database holds.
    public func counts() async throws -> (users: Int, classes: Int) {
        try await writer.read { db in
            let users = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE email LIKE ?", arguments: ["%@" + SyntheticData.emailDomain]) ?? 0
            let classes = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM classes c JOIN users u ON u.id = c.writer_id WHERE u.email LIKE ?
                """, arguments: ["%@" + SyntheticData.emailDomain]) ?? 0
            return (users, classes)
        }
    }

    /// Adds seeded users until there are `users`, then seeded listings until there are `classes`, reporting
    /// `(done, total)` after each batch. Every seeded user's password is `passwordHash`'s password.
    public func seed(
        users userCount: Int, classes classCount: Int, seed: UInt64, passwordHash: String,
        batchSize: Int = 10_000, progress: @Sendable (Int, Int) -> Void
    ) async throws {
        let existing = try await counts()
        var data = SyntheticData(seed: seed)
        let now = Date()
        let total = max(0, userCount - existing.users) + max(0, classCount - existing.classes)
        var done = 0
        var writers: [SyntheticUser] = []
        var writerIds: [String] = []
        var index = 0
        // Users are a pure function of (seed, index), so existing ones are regenerated, not re-inserted.
        while index < userCount {
            let end = min(userCount, index + batchSize)
            let batch = (index..<end).map { data.user(index: $0) }
            let ids = batch.map { Identifier.make(at: now.addingTimeInterval(Double($0.index) / 1000 - 1e6), using: &data) }
            if end > existing.users {
                let fresh = Array(zip(batch, ids).filter { $0.0.index >= existing.users })
                try await writer.write { db in
                    for (user, id) in fresh {
                        try SQLiteUserRepository.insertRow(User(
                            id: id, email: user.email, nickname: user.nickname, description: user.description,
                            subjects: user.subjects, location: user.location, keywordLocation: user.keywordLocation,
                            detailLocation: user.detailLocation, createdAt: now), passwordHash: passwordHash, db)
                    }
                }
                done += fresh.count
                progress(done, total)
            }
            writers += batch
            writerIds += ids
            index = end
        }
        if existing.users > 0 {
            // Users seeded earlier have their own ids: look them up by email.
            let byEmail = try await writer.read { db in
                try Dictionary(uniqueKeysWithValues: Row.fetchAll(
                    db, sql: "SELECT id, email_normalized FROM users WHERE email LIKE ?", arguments: ["%@" + SyntheticData.emailDomain]
                ).map { ($0["email_normalized"] as String, $0["id"] as String) })
            }
            writerIds = zip(writers, writerIds).map { user, generated in byEmail[UserRules.normalizedEmail(user.email)] ?? generated }
        }
        guard !writers.isEmpty else { return }
        var created = existing.classes
        while created < classCount {
            let count = min(batchSize, classCount - created)
            var listings: [ClassListing] = []
            listings.reserveCapacity(count)
            for offset in 0..<count {
                let writer = data.writerIndex(among: writers.count)
                let draft = data.classDraft(by: writers[writer])
                let createdAt = now.addingTimeInterval(Double(created + offset) / 1000 - Double(classCount) / 1000)
                var listing = ClassListing(
                    id: Identifier.make(at: createdAt, using: &data), type: .sell, name: "", description: "", days: [],
                    time: nil, place: nil, location: nil, keywordLocation: nil, price: nil, priceUnit: .perHour,
                    subjects: [], targets: [], capacity: 1, status: .open, imageIds: [], writerId: writerIds[writer],
                    favoriteCount: 0, createdAt: createdAt, updatedAt: createdAt)
                draft.apply(to: &listing)
                listings.append(listing)
            }
            try await writer.write { [listings] db in
                for listing in listings { try SQLiteClassRepository.insertRow(listing, db) }
            }
            created += count
            done += count
            progress(done, total)
        }
    }
}
