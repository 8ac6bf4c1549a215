import ArgumentParser
import ClassTodayServer

/// The `classtoday` executable: one binary with a subcommand per job.
@main
struct ClassTodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classtoday",
        abstract: "The ClassToday server: neighbourhood classes, search, chat and matching.",
        subcommands: [ServeCommand.self, MigrateCommand.self, SeedCommand.self, BenchCommand.self, AdminCommand.self, ClusterCommand.self],
        defaultSubcommand: ServeCommand.self)
}
