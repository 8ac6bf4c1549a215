import ArgumentParser
import ClassTodayServer
import Logging

/// `classtoday bench`: performance benchmarks, run against a release build.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Run a benchmark and print its report.", subcommands: [SearchBench.self])

    /// `classtoday bench search`.
    struct SearchBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Geohash search against a full scan and SQLite's R*Tree on a seeded dataset.",
            discussion: "The dataset is kept as bench-search-<classes>.sqlite in the data folder and reused by later runs.")

        @Option(help: "Listings in the dataset.")
        var classes = 1_000_000

        @Option(help: "Queries per kind.")
        var queries = 300

        @Option(help: "Full-scan runs per kind.")
        var fullScanQueries = 15

        @OptionGroup var options: ServerOptions

        func run() async throws {
            let configuration = try await options.resolve()
            var logger = Logger(label: "classtoday.bench")
            logger.logLevel = configuration.logLevel
            var benchOptions = SearchBenchmark.Options()
            benchOptions.classes = classes
            benchOptions.queries = queries
            benchOptions.fullScanQueries = fullScanQueries
            let bar = Console.ProgressBar("seeding")
            let benchmark = try await SearchBenchmark.prepare(benchOptions, configuration: configuration, logger: logger) { done, total in
                bar.update(done, of: total)
            }
            for line in try await benchmark.run() {
                Console.line(line)
            }
        }
    }
}
