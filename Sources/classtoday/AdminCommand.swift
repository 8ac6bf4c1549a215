import ArgumentParser
import ClassTodayCommandLine
import ClassTodayCore
import ClassTodayServer

/// `classtoday admin grant|revoke EMAIL`: the only way to give or take the operator role (never the API).
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Grant or revoke the operator role (the /v1/admin moderation routes).")

    /// What to do with the role.
    enum Change: String, ExpressibleByArgument, CaseIterable {
        /// Make the user an operator.
        case grant
        /// Take the role back.
        case revoke
    }

    @Argument(help: "grant or revoke.") var change: Change
    @Argument(help: "The user's email (any case).") var email: String
    @OptionGroup var options: ServerOptions

    /// Opens the database, changes the role and reports it; an unknown email fails the command.
    func run() async throws {
        let (environment, _) = try await options.openEnvironment(logging: "classtoday.admin")
        defer { environment.close() }
        do {
            let userId = try await environment.setOperator(email: email, change == .grant)
            Console.line("\(email) (user \(userId)) \(change == .grant ? "is now an operator" : "is no longer an operator")")
        } catch DomainError.notFound {
            throw ValidationError("no account has the email \(email)")
        }
    }
}
