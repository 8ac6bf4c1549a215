import PostgresNIO
import Synchronization

/// The statements prepared on each connection of the pool, by their text: a repeated statement
/// (``SQLStatement/isRepeated``) is parsed once per connection, and PostgreSQL may then keep its plan, where an
/// unnamed statement is parsed and planned at every run (0.7 ms for a search's cell statement, two to four times its
/// run).
final class PreparedStatements: Sendable {
    /// A connection's prepared statements, most recently used last.
    private struct Prepared {
        let connection: PostgresConnection
        var statements: [String: PreparedQuery] = [:]
        var recency: [String] = []
    }

    /// The most statements a connection keeps; the least recently used beyond are deallocated.
    static let perConnection = 32

    private let connections = Mutex<[PostgresConnection.ID: Prepared]>([:])

    /// Runs `sql` (placeholders numbered, each with its type's cast: ``PostgresDatabase/numberPlaceholders(_:typedAs:)``)
    /// with `binds` on `connection`, preparing it there first if it is not yet.
    func rows(_ sql: String, _ binds: [PostgresData], on connection: PostgresConnection) async throws -> [PostgresRow] {
        let statement: PreparedQuery
        if let prepared = remember(sql, on: connection) {
            statement = prepared
        } else {
            statement = try await connection.prepare(query: sql).get()
            for evicted in store(statement, as: sql, on: connection) {
                // The connection runs requests in order: the next statement waits for none of this.
                evicted.deallocate().whenFailure { _ in }
            }
        }
        return try await statement.execute(binds).get()
    }

    /// The statement prepared as `sql` on `connection`, marked most recently used; nil when it is not prepared.
    private func remember(_ sql: String, on connection: PostgresConnection) -> PreparedQuery? {
        connections.withLock { connections in
            guard let statement = connections[connection.id]?.statements[sql] else { return nil }
            connections[connection.id]?.recency.removeAll { $0 == sql }
            connections[connection.id]?.recency.append(sql)
            return statement
        }
    }

    /// Keeps `statement` for `connection` and returns the statements evicted to make room; forgets closed connections.
    private func store(_ statement: PreparedQuery, as sql: String, on connection: PostgresConnection) -> [PreparedQuery] {
        connections.withLock { connections in
            connections = connections.filter { !$0.value.connection.isClosed }
            var prepared = connections[connection.id] ?? Prepared(connection: connection)
            prepared.statements[sql] = statement
            prepared.recency.append(sql)
            var evicted: [PreparedQuery] = []
            while prepared.recency.count > Self.perConnection {
                let oldest = prepared.recency.removeFirst()
                if let statement = prepared.statements.removeValue(forKey: oldest) { evicted.append(statement) }
            }
            connections[connection.id] = prepared
            return evicted
        }
    }
}
