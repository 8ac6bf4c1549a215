import ArgumentParser
import ClassTodayCommandLine
import ClassTodaySeed
import ClassTodayServer
import Logging

/// `classtoday seed`: fills the database with realistic synthetic users and listings.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Add synthetic users and classes (Korean text, spread over Korean cities).",
        discussion: "Seeding is deterministic for a --seed and idempotent: it adds rows until the counts are reached. Seeded users log in with the password '\(SeedDefaults.password)'.")

    @Option(help: "How many seeded classes the database should hold.")
    var classes: Int

    @Option(help: "How many seeded users the database should hold (default: classes / 20, at least 1).")
    var users: Int?

    @Option(help: "The random seed.")
    var seed: UInt64 = 2026

    @OptionGroup var options: ServerOptions

    func validate() throws {
        guard classes >= 0 else { throw ValidationError("--classes must not be negative") }
        if let users, users < 1 { throw ValidationError("--users must be at least 1") }
    }

    func run() async throws {
        let (environment, logger) = try await options.openEnvironment(logging: "classtoday.seed")
        defer { environment.close() }
        let bar = Console.ProgressBar("seeding")
        try await environment.seed(users: users ?? max(1, classes / 20), classes: classes, seed: seed, logger: logger) { done, total in
            bar.update(done, of: total)
        }
        let counts = try await environment.seedCounts()
        logger.info("seeded", metadata: ["users": "\(counts.users)", "classes": "\(counts.classes)"])
    }
}
