import ArgumentParser
import ClassTodayCommandLine
import ClassTodayServer
import Foundation

/// `classtoday cluster`: rewrites PostgreSQL's listings in location order, for radius pages that read fewer table pages.
struct ClusterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Rewrite PostgreSQL's listings in location order (CLUSTER); reads and writes of listings wait meanwhile.")

    @Option(help: "How long to wait, in seconds, for transactions already using the listings before giving up.")
    var lockTimeout: Double = 5
    @OptionGroup var options: ServerOptions

    /// What the command says of a database that is not PostgreSQL's.
    private static let notPostgreSQL = ValidationError(
        "cluster rewrites the listings of a PostgreSQL database (--database postgres://…), not SQLite's")

    func validate() throws {
        guard lockTimeout > 0, lockTimeout <= 3_600 else { throw ValidationError("--lock-timeout must be between 0 and 3600 seconds") }
    }

    /// Opens the database, rewrites the listings and reports how their order followed their places before and after.
    func run() async throws {
        let configuration = try await options.resolve()
        // Checked before opening, which would create a missing SQLite file.
        guard case .postgres = try configuration.databaseLocation() else { throw Self.notPostgreSQL }
        let (environment, _) = try await options.openEnvironment(configuration, logging: "classtoday.cluster")
        defer { environment.close() }
        guard case .postgres(let store) = environment.storage else { throw Self.notPostgreSQL }
        let before = try await store.classesLocationOrder()
        let start = ContinuousClock.now
        // Another transaction holding the table past the timeout fails the command with ClassesTableBusy's message.
        try await store.clusterClasses(lockTimeout: .seconds(lockTimeout))
        let took = ContinuousClock.now - start
        let after = try await store.classesLocationOrder()
        func order(_ correlation: Double?) -> String { correlation.map { String(format: "%.2f", $0) } ?? "unknown" }
        Console.line(String(format: "listings rewritten in location order in %.1f s", took.seconds)
            + ": their rows followed their geohashes with a correlation of \(order(before)) before, \(order(after)) now")
    }
}
