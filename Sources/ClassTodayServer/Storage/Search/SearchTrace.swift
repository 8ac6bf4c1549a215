import Synchronization

/// What one search did, recorded for `classtoday explain search` and the search bench when asked for: the plans it
/// tried (``SearchPlanName``), the one that answered, the statements it ran and how many candidates it examined. A
/// search given no trace records nothing: each place that would record holds a nil, and statements run on the
/// caller's executor as they are.
package final class SearchTrace: Sendable {
    /// One statement a search ran.
    package struct Statement: Sendable {
        /// The SQL text, with a `?` for each bound value.
        package let sql: String
        /// The bound values, as text, in placeholder order.
        package let values: [String]
        /// How many rows it returned.
        package let rows: Int
    }

    /// What a search recorded.
    package struct Record: Sendable {
        /// The plans that found they could not answer the page, in the order they were tried.
        package var declined: [SearchPlanName] = []
        /// The plan that answered the page.
        package var plan: SearchPlanName?
        /// The plan the answering plan handed the page over to, if any (the cell walk to a rare keyword's hits).
        package var handedOverTo: SearchPlanName?
        /// The statements it ran, in order (when the trace records statements).
        package var statements: [Statement] = []
        /// How many candidates its plans examined: the listings, points or keyword hits they read before the page
        /// settled, the page's own listings left out.
        package var candidates = 0

        /// The plan as a report names it: the one that answered, and the one it handed over to, if any.
        package var planText: String {
            guard let plan else { return "none" }
            return handedOverTo.map { "\(plan.rawValue) → \($0.rawValue)" } ?? plan.rawValue
        }
    }

    /// Whether the statements are recorded, or the plans and counts alone (the bench's slowest queries).
    package let recordsStatements: Bool
    private let state = Mutex(Record())

    /// A trace recording statements too when `recordsStatements`.
    package init(recordsStatements: Bool = true) {
        self.recordsStatements = recordsStatements
    }

    /// What has been recorded so far.
    package var record: Record {
        state.withLock { $0 }
    }

    /// Notes that `plan` declined the page.
    func declined(_ plan: SearchPlanName) {
        state.withLock { $0.declined.append(plan) }
    }

    /// Notes that `plan` answered the page.
    func answered(by plan: SearchPlanName) {
        state.withLock { $0.plan = plan }
    }

    /// Notes that the answering plan handed its page over to `plan`.
    func handedOver(to plan: SearchPlanName) {
        state.withLock { $0.handedOverTo = plan }
    }

    /// Notes `count` candidates examined.
    func examined(_ count: Int) {
        state.withLock { $0.candidates += count }
    }

    /// Notes a statement run.
    func ran(_ statement: SQLStatement, rows: Int) {
        let recorded = Statement(sql: statement.sql, values: statement.values.map(\.traceText), rows: rows)
        state.withLock { $0.statements.append(recorded) }
    }
}

/// An executor that runs a search's statements on another and records each in a ``SearchTrace``: it stands in for the
/// search's executor only when the trace records statements.
struct TracingExecutor: SQLExecutor {
    /// The executor the statements run on.
    let base: any SQLExecutor
    /// Where they are recorded.
    let trace: SearchTrace

    var dialect: SQLDialect { base.dialect }

    var classPoints: ClassPointIndex? { base.classPoints }

    var tokenCounts: TokenCounts? { base.tokenCounts }

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        let rows = try await base.rows(statement)
        trace.ran(statement, rows: rows.count)
        return rows
    }

    func execute(_ statement: SQLStatement) async throws -> Int {
        let changed = try await base.execute(statement)
        trace.ran(statement, rows: 0)
        return changed
    }
}

extension SQLValue {
    /// The value as a trace prints it: text quoted as SQL writes it, numbers as they are, NULL.
    fileprivate var traceText: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let text): "'" + text.replacing("'", with: "''") + "'"
        }
    }
}
