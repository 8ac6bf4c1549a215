import ClassTodayCore
import ClassTodayServer
import Logging

/// Facts about seeded data that people need to use it.
public enum SeedDefaults {
    /// The password of every seeded user (emails are `user<N>@seed.classtoday.app`).
    public static let password = "classtoday-seed"
}

extension ServerEnvironment {
    /// The seeder for this environment's storage.
    private func seeder() -> Seeder {
        Seeder(target: SQLSeedTarget(database: storage.database))
    }

    /// Adds seeded users and listings until the database holds `users` and `classes` of them, reporting the keyword
    /// index upgrade that comes first to `logger`.
    public func seed(users: Int, classes: Int, seed: UInt64, logger: Logger, progress: @Sendable (Int, Int) -> Void) async throws {
        let hash = try await PasswordHasher(cost: configuration.bcryptCost).hash(SeedDefaults.password)
        try await seeder().seed(users: users, classes: classes, seed: seed, passwordHash: hash, logger: logger, progress: progress)
    }

    /// How many seeded users and listings the database holds.
    public func seedCounts() async throws -> (users: Int, classes: Int) {
        try await seeder().counts()
    }
}
