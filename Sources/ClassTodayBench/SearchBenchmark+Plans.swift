import ClassTodayCore
import ClassTodayServer

extension SearchBenchmark {
    /// `queries` with the plans that answer them named (``SearchPlanName``), SQLite's and PostgreSQL's when the bench
    /// asks it too. Each query is asked again of each backend, untimed, with a trace that records its plans alone
    /// (``SearchTrace``): the timed reads carry no trace, as a server's searches do not.
    func namingPlans(of queries: [SlowQuery]) async throws -> [SlowQuery] {
        var named = queries
        for index in named.indices {
            let search = named[index].search
            var postgresPlan: String?
            if let postgres { postgresPlan = try await plan(of: search, on: postgres.database) }
            named[index].plans = (try await plan(of: search, on: store.database), postgresPlan)
        }
        return named
    }

    /// The plan that answers the first page of `search` on `database`, as a report names it.
    private func plan(of search: ClassSearch, on database: any SQLDatabase) async throws -> String {
        let trace = SearchTrace(recordsStatements: false)
        _ = try await SQLClassSearch(search: search, page: PageRequest(limit: options.limit), viewerId: nil, dialect: database.dialect,
                                     trace: trace).run(on: database)
        return trace.record.planText
    }
}
