import ArgumentParser
import ClassTodayCommandLine
import ClassTodayServer
import Foundation

/// `classtoday images …`: administration of the image store.
struct ImagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images", abstract: "Administer the image store.", subcommands: [MigrateImagesCommand.self])
}

/// `classtoday images migrate --to s3`: copies the disk store into the bucket the `images.s3.*` settings name.
struct MigrateImagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy the images on disk into the bucket of images.s3.*; run it again to resume. Then set images.store to s3.")

    /// The store to copy into.
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case s3
    }

    @Option(help: "The store to copy the disk's images into.")
    var to: Target
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try await options.resolve()
        try configuration.imageStore.s3.validate()
        let migration = ImageStoreMigration(root: configuration.imagesDirectory, s3: S3Client(settings: configuration.imageStore.s3))
        let total = try migration.files().count
        let progress = Console.ProgressBar("copying images")
        let report = try await migration.run { report in
            progress.update(report.copied + report.alreadyThere + report.mismatched.count, of: total)
        }
        Console.line("\(report.copied) objects copied and verified, \(report.alreadyThere) already in the bucket, "
            + "\(report.mismatched.count) left out because their bytes do not match")
        for path in report.mismatched { Console.line("  mismatched: \(path)") }
        if !report.mismatched.isEmpty { throw ExitCode.failure }
    }
}
