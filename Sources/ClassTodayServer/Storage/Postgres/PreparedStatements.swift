import PostgresNIO
import Synchronization

/// The statements prepared on each connection of the pool, by their text and their values' types: a repeated statement
/// (``SQLStatement/isRepeated``) is parsed once per connection, and PostgreSQL may then keep its plan, where an
/// unnamed statement is parsed and planned at every run (0.7 ms for a search's cell statement, two to four times its
/// run). A statement is found by its own text, with `?` placeholders: the text prepared from it, placeholders numbered
/// and cast (``PostgresDatabase/numberPlaceholders(_:typedAs:)``), is written once, when it is prepared on a connection.
final class PreparedStatements: Sendable {
    /// A statement's text and its placeholders' casts (``PostgresDatabase/cast(of:)``), which the prepared text follows.
    private struct Key: Hashable {
        let sql: String
        let casts: [String?]

        init(_ statement: SQLStatement) {
            sql = statement.sql
            casts = statement.values.map(PostgresDatabase.cast(of:))
        }
    }

    /// A connection's prepared statements, most recently used last.
    private struct Prepared {
        let connection: PostgresConnection
        var statements: [Key: PreparedQuery] = [:]
        var recency: [Key] = []
    }

    /// The most statements a connection keeps; the least recently used beyond are deallocated.
    static let perConnection = 32

    private let connections = Mutex<[PostgresConnection.ID: Prepared]>([:])

    /// Runs `statement` with `binds` (its values) on `connection`, preparing it there first if it is not yet.
    func rows(_ statement: SQLStatement, _ binds: [PostgresData], on connection: PostgresConnection) async throws -> [PostgresRow] {
        let key = Key(statement)
        let prepared: PreparedQuery
        if let known = remember(key, on: connection) {
            prepared = known
        } else {
            let sql = PostgresDatabase.numberPlaceholders(statement.sql, typedAs: statement.values)
            prepared = try await connection.prepare(query: sql).get()
            for evicted in store(prepared, as: key, on: connection) {
                // The connection runs requests in order: the next statement waits for none of this.
                evicted.deallocate().whenFailure { _ in }
            }
        }
        return try await prepared.execute(binds).get()
    }

    /// The statement prepared for `key` on `connection`, marked most recently used; nil when it is not prepared.
    private func remember(_ key: Key, on connection: PostgresConnection) -> PreparedQuery? {
        connections.withLock { connections in
            guard let statement = connections[connection.id]?.statements[key] else { return nil }
            connections[connection.id]?.recency.removeAll { $0 == key }
            connections[connection.id]?.recency.append(key)
            return statement
        }
    }

    /// Keeps `statement` for `connection` and returns the statements evicted to make room; forgets closed connections.
    private func store(_ statement: PreparedQuery, as key: Key, on connection: PostgresConnection) -> [PreparedQuery] {
        connections.withLock { connections in
            connections = connections.filter { !$0.value.connection.isClosed }
            var prepared = connections[connection.id] ?? Prepared(connection: connection)
            prepared.statements[key] = statement
            prepared.recency.append(key)
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
