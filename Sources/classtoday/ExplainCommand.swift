import ArgumentParser
import ClassTodayCommandLine
import ClassTodayCore
import ClassTodayServer

/// `classtoday explain search QUERY`: how the server answers a request, for operators who ask why one is slow.
struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", abstract: "Show how the server answers a request: its plan, statements and counts.",
        subcommands: [ExplainSearchCommand.self])
}

/// `classtoday explain search 'lat=37.56&lon=126.97&radius=2000&q=수학'`: runs the first page of a `GET /v1/classes`
/// search anonymously on the configured database and prints the plan that answered it, the plans that declined it,
/// the statements it ran with their bound values and rows, how many candidates it examined, and the page's size.
struct ExplainSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Explain a GET /v1/classes search: the plan, its statements and counts.")

    @Argument(help: "The query string of GET /v1/classes, e.g. 'lat=37.56&lon=126.97&radius=2000&q=수학'.")
    var query: String
    @OptionGroup var options: ServerOptions

    /// Reads the query (a bad parameter fails the command, naming it), then opens the database and explains the search.
    func run() async throws {
        let search: ClassSearch, page: PageRequest
        do {
            (search, page) = try SearchExplanation.request(query)
        } catch DomainError.validation(let errors) {
            throw ValidationError("bad query: " + errors.map { "\($0.field) \($0.message)" }.joined(separator: "; "))
        }
        let (environment, _) = try await options.openEnvironment(logging: "classtoday.explain")
        defer { environment.close() }
        for line in try await environment.explainSearch(search, page: page).lines {
            Console.line(line)
        }
    }
}
