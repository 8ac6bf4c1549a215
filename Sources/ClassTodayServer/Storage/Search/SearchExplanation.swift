import ClassTodayCore
import Foundation
import HummingbirdCore

/// How the server answered the first page of a search, as `classtoday explain search` prints it: the plan that
/// answered (``SearchPlanName``), the plans that declined first, the statements it ran and how many candidates it
/// examined (``SearchTrace``), and the page's size.
package struct SearchExplanation: Sendable {
    /// The search and page asked for.
    package let search: ClassSearch
    /// The page size asked for (`limit`, or the default).
    package let limit: Int
    /// What the search recorded.
    package let record: SearchTrace.Record
    /// The ids of the page's listings, in order.
    package let ids: [String]
    /// Whether the page has a next one (a cursor).
    package let hasNextPage: Bool

    /// The search and page request of the query string `query` of `GET /v1/classes` (`lat=37.56&lon=126.97&q=수학`,
    /// with or without a leading `?`), read as the route reads it: throws ``DomainError/validation(_:)`` naming every
    /// bad parameter.
    package static func request(_ query: String) throws -> (ClassSearch, PageRequest) {
        let uri = URI("/v1/classes?" + (query.hasPrefix("?") ? String(query.dropFirst()) : query))
        let search = try ClassSearchParameters.parse(uri)
        return (search, try PageRequest(query: uri, ordering: search.sort.rawValue))
    }

    /// Runs `search` for `page` anonymously on `database`, recording what it did.
    package static func explain(_ search: ClassSearch, page: PageRequest, on database: any SQLDatabase) async throws -> SearchExplanation {
        let trace = SearchTrace()
        let result = try await SQLClassSearch(search: search, page: page, viewerId: nil, dialect: database.dialect, trace: trace)
            .run(on: database)
        return SearchExplanation(search: search, limit: page.limit, record: trace.record, ids: result.items.map(\.listing.id),
                                 hasNextPage: result.nextCursor != nil)
    }

    /// The explanation as lines of text: the plan, the declined plans, the counts, then each statement.
    package var lines: [String] {
        var lines = ["plan: \(record.planText)"]
        if !record.declined.isEmpty { lines.append("declined: " + record.declined.map(\.rawValue).joined(separator: ", ")) }
        lines.append("candidates examined: \(record.candidates)")
        lines.append("page: \(ids.count) of limit \(limit)\(hasNextPage ? ", more follow" : ", last page")")
        lines.append("statements: \(record.statements.count)")
        for (number, statement) in record.statements.enumerated() {
            lines.append("")
            lines.append("#\(number + 1) (\(statement.rows) rows)\(statement.values.isEmpty ? "" : " values: " + statement.values.joined(separator: ", "))")
            lines += statement.sql.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        return lines
    }
}

extension ServerEnvironment {
    /// How this server answers the first page of `search` for `page`, read anonymously (``SearchExplanation``).
    package func explainSearch(_ search: ClassSearch, page: PageRequest) async throws -> SearchExplanation {
        try await SearchExplanation.explain(search, page: page, on: storage.database)
    }
}
