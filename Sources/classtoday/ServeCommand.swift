import ArgumentParser
import ClassTodayCommandLine
import ClassTodayServer
import Configuration
import Hummingbird
import Logging

/// `classtoday serve`: runs the HTTP and WebSocket server until SIGINT or SIGTERM, then drains and exits 0.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Start the server.")

    @Option(help: "The address to listen on. Env: CLASSTODAY_HOST. Default 127.0.0.1")
    var host: String?

    @Option(help: "The port to listen on. Env: CLASSTODAY_PORT. Default 8080")
    var port: Int?

    @Option(help: "Requests per minute per client; 0 turns rate limiting off. Env: CLASSTODAY_RATE_LIMIT")
    var rateLimit: Int?

    @Option(help: "The banned-words list, reread when it changes. Env: CLASSTODAY_BANNED_WORDS_PATH. Default: built into the binary")
    var bannedWords: String?

    @OptionGroup var options: ServerOptions

    func run() async throws {
        MallocTuning.apply()
        var extra: [String: ConfigValue] = [:]
        if let host { extra["host"] = .init(.string(host), isSecret: false) }
        if let port { extra["port"] = .init(.int(port), isSecret: false) }
        if let rateLimit { extra["rateLimit"] = .init(.int(rateLimit), isSecret: false) }
        if let bannedWords { extra["bannedWords.path"] = .init(.string(bannedWords), isSecret: false) }
        let configuration = try await options.resolve(extra: extra)
        var logger = Logger(label: "classtoday")
        logger.logLevel = configuration.logLevel
        let app = try await buildApplication(configuration, logger: logger)
        try await app.runService()
    }
}
