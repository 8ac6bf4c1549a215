import ArgumentParser
import ClassTodayBench
import ClassTodayCommandLine
import ClassTodaySeed
import ClassTodayServer
import Foundation
import Logging

/// `classtoday-bench`: performance benchmarks, run against a release build
/// (`swift run -c release classtoday-bench search`). A tool of its own: the server's `classtoday` links no benchmark
/// and no fake push service.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classtoday-bench", abstract: "Run a benchmark of the ClassToday server and print its report.", subcommands: [SearchBench.self, ChatBench.self, AlertsBench.self, ImagesBench.self, PushBench.self, PasswordResetBench.self])

    /// `classtoday-bench search`.
    struct SearchBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Geohash search against a full scan and SQLite's R*Tree on a seeded dataset.",
            discussion: """
                The dataset is kept as bench-search-<classes>.sqlite in the data folder and reused by later runs. With \
                --database postgres://..., the same dataset is seeded into that database too (and kept), and every query \
                also runs on PostgreSQL, reported side by side with SQLite. With --peers postgres://... (a database where \
                PostGIS can be enabled), the dataset's points are loaded there too (and kept), and every circle query is \
                also asked of PostGIS and of the server over HTTP on loopback, with a profile of where a page's time goes; \
                with both, of a second server over PostgreSQL's copy too, beside the first.
                """)

        @Option(help: "Listings in the dataset.")
        var classes = 1_000_000

        @Option(help: "Queries per kind.")
        var queries = 300

        @Option(help: "Full-scan runs per kind.")
        var fullScanQueries = 15

        @Option(help: "Query kinds to run, comma-separated: circle, keyword, blocks (circles by a viewer who blocked 100 writers), district (circles within a district), filters (circles with subject, price, target and day filters).", transform: { text in
            try text.split(separator: ",").map { name in
                guard let kind = SearchBenchmark.Kind(rawValue: String(name)) else { throw ValidationError("unknown kind \(name)") }
                return kind
            }
        })
        var kinds: [SearchBenchmark.Kind] = [.circle, .keyword]

        @Option(help: "A PostGIS-enabled PostgreSQL database (postgres://...) to answer the circle queries beside the server, which also answers them over HTTP.")
        var peers: String?

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await BenchCommand.report(options, label: "classtoday.bench.search", stage: "seeding") { configuration, logger, progress in
                var benchOptions = SearchBenchmark.Options()
                benchOptions.classes = classes
                benchOptions.queries = queries
                benchOptions.fullScanQueries = fullScanQueries
                benchOptions.kinds = Set(kinds)
                benchOptions.peers = peers
                return try await SearchBenchmark.prepare(benchOptions, configuration: configuration, logger: logger, progress: progress).run()
            }
        }
    }

    /// `classtoday-bench chat`.
    struct ChatBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "chat",
            abstract: "Load a running server's chat over WebSockets and check every delivery.",
            discussion: """
                Start the server first, on loopback, with cheap passwords and no rate limits, for example:
                CLASSTODAY_BCRYPT_COST=4 CLASSTODAY_AUTH_RATE_LIMIT=0 classtoday serve --rate-limit 0
                """)

        @Option(help: "The server's base URL (loopback only); several, comma-separated, for nodes sharing one database: the two members of each room then connect to different nodes.")
        var url = "http://127.0.0.1:8080"

        @Option(help: "WebSocket connections to open.")
        var connections = 5000

        @Option(help: "Rooms to spread them over (two members each).")
        var rooms = 2500

        @Option(help: "Messages per second, in total.")
        var rate = 2000

        @Option(help: "How long to send.")
        var seconds = 60

        @Option(help: "The server's process id, for memory figures (found through /proc when omitted).")
        var serverPid: Int32?

        func validate() throws {
            for node in url.split(separator: ",") {
                guard let host = URL(string: String(node))?.host, ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) || host.hasPrefix("127.") else {
                    throw ValidationError("--url must point at loopback addresses")
                }
            }
            guard connections > 0, rooms > 0, rate > 0, seconds > 0 else { throw ValidationError("counts must be positive") }
        }

        func run() async throws {
            var options = ChatBenchmark.Options()
            options.urls = url.split(separator: ",").map(String.init)
            options.connections = connections
            options.rooms = rooms
            options.rate = rate
            options.seconds = seconds
            options.serverPID = serverPid
            var logger = Logger(label: "classtoday.bench.chat")
            logger.logLevel = .warning
            for line in try await ChatBenchmark(options: options, logger: logger).run() {
                Console.line(line)
            }
        }
    }

    /// `classtoday-bench push`.
    struct PushBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Deliver one chat message's push to each of N offline recipients through a fake APNs (HTTP/2, TLS) on loopback.")

        @Option(help: "Offline recipients, one message and one iOS device each.")
        var recipients = 10_000

        @Option(help: "Messages stored per second; 0 stores them all at once (a burst).")
        var rate = 0

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await BenchCommand.report(options, label: "classtoday.bench.push", stage: "setting up") { configuration, logger, progress in
                var benchOptions = PushBenchmark.Options()
                benchOptions.recipients = recipients
                benchOptions.rate = rate
                return try await PushBenchmark(benchOptions, configuration: configuration, logger: logger).run(progress: progress)
            }
        }
    }

    /// `classtoday-bench password-reset`.
    struct PasswordResetBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password-reset",
            abstract: "Compare the answer times of password-reset requests for addresses with and without an account.")

        @Option(help: "Requests per kind, interleaved in random order.")
        var requests = 500

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await BenchCommand.report(options, label: "classtoday.bench.password-reset", stage: "requesting") { configuration, logger, progress in
                var benchOptions = PasswordResetBenchmark.Options()
                benchOptions.requests = requests
                return try await PasswordResetBenchmark(benchOptions, configuration: configuration, logger: logger).run(progress: progress)
            }
        }
    }

    /// `classtoday-bench alerts`.
    struct AlertsBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alerts",
            abstract: "Time class creation with and without matching against many alerts; check the notifications by brute force.")

        @Option(help: "Alerts stored before classes are created.")
        var alerts = 100_000

        @Option(help: "Classes created.")
        var classes = 10_000

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await BenchCommand.report(options, label: "classtoday.bench.alerts", stage: "running") { configuration, logger, progress in
                var benchOptions = AlertBenchmark.Options()
                benchOptions.alerts = alerts
                benchOptions.classes = classes
                return try await AlertBenchmark.prepare(benchOptions, configuration: configuration, logger: logger).run(progress: progress)
            }
        }
    }

    /// `classtoday-bench images`.
    struct ImagesBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "images",
            abstract: "Time thumbnails of generated phone-sized JPEGs against vipsthumbnail and ImageMagick; peak memory of two uploads at once.")

        @Option(help: "How many JPEGs to generate (kept in the data folder for later runs).")
        var files = 100

        @Option(help: "The JPEGs' width in pixels.")
        var width = 4000

        @Option(help: "The JPEGs' height in pixels.")
        var height = 3000

        @Option(help: "The vipsthumbnail program (apt-get install libvips-tools).")
        var vipsthumbnail = "/usr/bin/vipsthumbnail"

        @Option(help: "ImageMagick's convert program (apt-get install imagemagick).")
        var convert = "/usr/bin/convert"

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await BenchCommand.report(options, label: "classtoday.bench.images", stage: "generating") { configuration, _, progress in
                var benchOptions = ImageBenchmark.Options()
                (benchOptions.files, benchOptions.width, benchOptions.height) = (files, width, height)
                (benchOptions.vipsthumbnail, benchOptions.convert) = (vipsthumbnail, convert)
                if !configuration.imageStore.s3.bucket.isEmpty {
                    try configuration.imageStore.s3.validate()
                    benchOptions.s3 = configuration.imageStore.s3
                }
                return try await ImageBenchmark(benchOptions, dataDirectory: configuration.dataDirectory)
                    .run(vipsLibrary: configuration.vipsLibraryPath, progress: progress)
            }
        }
    }

    /// Applies the server's allocator settings (``MallocTuning``, as `serve` does, so that the time and memory
    /// measured are the server's), resolves the configuration and a logger labelled `label`, runs `benchmark` with a
    /// progress bar named `stage`, and prints the report's lines.
    static func report(
        _ options: ServerOptions, label: String, stage: String,
        _ benchmark: (AppConfiguration, Logger, @escaping @Sendable (Int, Int) -> Void) async throws -> [String]
    ) async throws {
        MallocTuning.apply()
        let configuration = try await options.resolve()
        var logger = Logger(label: label)
        logger.logLevel = configuration.logLevel
        let bar = Console.ProgressBar(stage)
        for line in try await benchmark(configuration, logger, { bar.update($0, of: $1) }) {
            Console.line(line)
        }
    }
}
