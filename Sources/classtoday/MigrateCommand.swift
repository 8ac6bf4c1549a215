import ArgumentParser
import ClassTodayServer
import Logging

/// `classtoday migrate`: applies pending migrations and exits.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply pending database migrations.")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try await options.resolve()
        var logger = Logger(label: "classtoday.migrate")
        logger.logLevel = configuration.logLevel
        _ = try await ServerEnvironment.open(configuration, logger: logger)
        logger.info("database is up to date")
    }
}
