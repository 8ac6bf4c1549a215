import ArgumentParser
import ClassTodayServer

/// The `classtoday` executable: serving, migrating, seeding and administering, a subcommand per job. Benchmarks are
/// `classtoday-bench`.
@main
struct ClassTodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classtoday",
        abstract: "The ClassToday server: neighbourhood classes, search, chat and matching.",
        subcommands: [ServeCommand.self, MigrateCommand.self, SeedCommand.self, AdminCommand.self, ClusterCommand.self, ImagesCommand.self,
                      ExplainCommand.self],
        defaultSubcommand: ServeCommand.self)
}
