import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging

/// A database that ``Seeder`` writes synthetic users and listings to, in large batches.
package protocol SeedTarget: Sendable {
    /// How many seeded users and listings the database holds.
    func counts() async throws -> (users: Int, classes: Int)
    /// The ids of the seeded users already stored, by normalized email.
    func seededUserIds() async throws -> [String: String]
    /// Stores users (one transaction), all with `passwordHash`.
    func insert(users: [User], passwordHash: String) async throws
    /// Stores listings (one transaction), through the repository's own row writer.
    func insert(listings: [ClassListing]) async throws
    /// Brings the keyword index up to the current tokenizer, as a server does when it starts: listings indexed by an
    /// older one are indexed again (an empty database is only marked current), the progress reported to `logger`.
    func upgradeKeywordIndex(logger: Logger) async throws
}

/// Fills a database with synthetic users and listings (``SyntheticData``) through the same row writers the
/// repositories use, so that seeded rows are indistinguishable from real ones. Seeding is resumable: a second
/// run adds only what is missing.
package struct Seeder: Sendable {
    let target: any SeedTarget

    /// A seeder writing to `target`.
    package init(target: any SeedTarget) {
        self.target = target
    }

    /// How many seeded users and listings the database holds.
    package func counts() async throws -> (users: Int, classes: Int) {
        try await target.counts()
    }

    /// Adds seeded users until there are `users`, then seeded listings until there are `classes`, reporting
    /// `(done, total)` after each batch and the keyword index upgrade's progress to `logger`. Every seeded user's
    /// password is `passwordHash`'s password.
    package func seed(
        users userCount: Int, classes classCount: Int, seed: UInt64, passwordHash: String,
        batchSize: Int = 10_000, logger: Logger, progress: @Sendable (Int, Int) -> Void
    ) async throws {
        // Before any listing is written: a fresh database says its index is of the first version, and a server started
        // on it would index every seeded listing (written with the current tokenizer) again.
        try await target.upgradeKeywordIndex(logger: logger)
        let existing = try await target.counts()
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
                let fresh = zip(batch, ids).filter { $0.0.index >= existing.users }.map { user, id in
                    User(id: id, email: user.email, nickname: user.nickname, description: user.description,
                         subjects: user.subjects, location: user.location, keywordLocation: user.keywordLocation,
                         detailLocation: user.detailLocation, createdAt: now)
                }
                try await target.insert(users: fresh, passwordHash: passwordHash)
                done += fresh.count
                progress(done, total)
            }
            writers += batch
            writerIds += ids
            index = end
        }
        if existing.users > 0 {
            // Users seeded earlier have their own ids: look them up by email.
            let byEmail = try await target.seededUserIds()
            writerIds = zip(writers, writerIds).map { user, generated in byEmail[UserRules.normalizedEmail(user.email)] ?? generated }
        }
        guard !writers.isEmpty else { return }
        // Listings, like users, are a pure function of (seed, index): those stored by an earlier run are generated
        // again and skipped, so that seeding in several runs stores the same listings as seeding in one.
        var generated = 0
        while generated < classCount {
            let count = min(batchSize, classCount - generated)
            var listings: [ClassListing] = []
            listings.reserveCapacity(count)
            for offset in 0..<count {
                let writer = data.writerIndex(among: writers.count)
                let draft = data.classDraft(by: writers[writer])
                let createdAt = now.addingTimeInterval(Double(generated + offset) / 1000 - Double(classCount) / 1000)
                var listing = ClassListing(
                    id: Identifier.make(at: createdAt, using: &data), type: .sell, name: "", description: "", days: [],
                    time: nil, place: nil, location: nil, keywordLocation: nil, price: nil, priceUnit: .perHour,
                    subjects: [], targets: [], capacity: 1, status: .open, imageIds: [], writerId: writerIds[writer],
                    favoriteCount: 0, createdAt: createdAt, updatedAt: createdAt)
                draft.apply(to: &listing)
                listings.append(listing)
            }
            let fresh = listings.dropFirst(max(0, existing.classes - generated))
            if !fresh.isEmpty {
                try await target.insert(listings: Array(fresh))
                done += fresh.count
                progress(done, total)
            }
            generated += count
        }
    }
}
