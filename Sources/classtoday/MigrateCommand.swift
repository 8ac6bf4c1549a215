import ArgumentParser
import ClassTodayCommandLine
import ClassTodayServer
import Logging

/// `classtoday migrate`: applies pending migrations and exits.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply pending database migrations.")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let (environment, logger) = try await options.openEnvironment(logging: "classtoday.migrate")
        environment.close()
        logger.info("database is up to date")
    }
}
