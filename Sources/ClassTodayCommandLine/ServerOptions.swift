import ArgumentParser
import ClassTodayServer
import Configuration
import Foundation
import Logging

/// Options shared by the commands that open the database (`classtoday`'s and `classtoday-bench`'s). A flag overrides
/// its `CLASSTODAY_*` variable, which overrides the config file, which overrides the built-in default.
public struct ServerOptions: ParsableArguments {
    @Option(help: "The data folder (SQLite database and images). Env: CLASSTODAY_DATA_DIR. Default ./data")
    public var dataDir: String?

    @Option(help: "sqlite:///path/file.sqlite or postgres://user:pass@host:port/db. Env: CLASSTODAY_DATABASE_URL")
    public var database: String?

    @Option(help: "A JSON config file. Env: CLASSTODAY_CONFIG. Default config/classtoday.json when present")
    public var config: String?

    @Option(help: "The folder holding sqlite/ and postgres/ migrations. Env: CLASSTODAY_MIGRATIONS_DIR. Default: built into the binary")
    public var migrationsDir: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. Env: CLASSTODAY_LOG_LEVEL")
    public var logLevel: String?

    /// Options with every flag unset.
    public init() {}

    /// The configuration, with `extra` flag values of the subcommand added to these options.
    public func resolve(extra: [String: ConfigValue] = [:]) async throws -> AppConfiguration {
        var flags = extra
        if let dataDir { flags["dataDir"] = .init(.string(dataDir), isSecret: false) }
        if let migrationsDir { flags["migrationsDir"] = .init(.string(migrationsDir), isSecret: false) }
        if let logLevel { flags["logLevel"] = .init(.string(logLevel), isSecret: false) }
        if let database { flags["databaseUrl"] = .init(.string(database), isSecret: true) }
        let environment = ProcessInfo.processInfo.environment
        return try await AppConfiguration.resolve(
            flags: flags, environment: environment, configFile: config ?? environment[AppConfiguration.configFileVariable])
    }

    /// The database these options name, opened with its pending migrations applied for a command that runs without
    /// the server, and a logger labelled `label` at the configured level; the caller closes the environment. A command
    /// that checked the configuration first passes the one it ``resolve(extra:)``d.
    public func openEnvironment(_ resolved: AppConfiguration? = nil, logging label: String) async throws -> (ServerEnvironment, Logger) {
        let configuration = if let resolved { resolved } else { try await resolve() }
        var logger = Logger(label: label)
        logger.logLevel = configuration.logLevel
        return (try await ServerEnvironment.open(configuration, logger: logger), logger)
    }
}
