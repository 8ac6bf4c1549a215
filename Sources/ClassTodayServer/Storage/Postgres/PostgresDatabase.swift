import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The seam over postgres-nio's `PostgresClient`: single statements run on a pooled connection; ``read(_:)`` and
/// ``transaction(_:)`` hold one connection for the body (a read-only repeatable-read snapshot, or one transaction).
/// Statements' `?` placeholders become `$1`, `$2`, ... here.
public struct PostgresDatabase: SQLDatabase {
    /// The pool.
    let client: PostgresClient
    /// Where the driver logs.
    let logger: Logger
    /// The repeated statements prepared on the pool's connections.
    private let prepared: PreparedStatements
    /// The keyword tokens' counts in memory, which connections lend to keyword searches; nil lends none.
    private let counts: TokenCounts?

    /// The seam over `client`.
    init(client: PostgresClient, logger: Logger) {
        let prepared = PreparedStatements()
        let uncounted = PostgresDatabase(client: client, logger: logger, prepared: prepared, counts: nil)
        self.init(client: client, logger: logger, prepared: prepared, counts: TokenCounts(index: TSVectorClassIndex(), database: uncounted, logger: logger))
    }

    private init(client: PostgresClient, logger: Logger, prepared: PreparedStatements, counts: TokenCounts?) {
        (self.client, self.logger, self.prepared, self.counts) = (client, logger, prepared, counts)
    }

    /// The keyword tokens' counts this database's connections lend.
    public var tokenCounts: TokenCounts? { counts }

    /// PostgreSQL's fragments.
    public var dialect: SQLDialect { .postgres }

    public func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await client.withConnection { connection in
            try await Connection(connection: connection, logger: logger, prepared: prepared, tokenCounts: counts).rows(statement)
        }
    }

    @discardableResult
    public func execute(_ statement: SQLStatement) async throws -> Int {
        try await client.withConnection { connection in
            try await Connection(connection: connection, logger: logger, prepared: prepared, tokenCounts: counts).execute(statement)
        }
    }

    public func read<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result {
        try await transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", body)
    }

    public func transaction<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result {
        try await transaction(begin: "BEGIN", body)
    }

    /// Nothing: the server's write-ahead log and data files are its own, recycled as it checkpoints.
    public func purgeDeletedData() async throws {}

    /// Runs `body` in a transaction begun with `begin` on one pooled connection, committing when it returns and
    /// rolling back when it throws. The body runs on the connection's event loop (``EventLoopExecutor``), where its
    /// statements' results arrive: a search's dozen statements then wait for no thread hop each.
    private func transaction<Result: Sendable>(
        begin: SQLStatement, _ body: (any SQLExecutor) async throws -> Result
    ) async throws -> Result {
        try await client.withConnection { connection in
            try await withTaskExecutorPreference(EventLoopExecutor(eventLoop: connection.eventLoop)) {
                let db = Connection(connection: connection, logger: logger, prepared: prepared, tokenCounts: counts)
                _ = try await db.execute(begin)
                let result: Result
                do {
                    result = try await body(db)
                } catch {
                    // The body's error is the one to report; a connection that cannot roll back is closed by the pool.
                    _ = try? await db.execute("ROLLBACK")
                    throw error
                }
                _ = try await db.execute("COMMIT")
                return result
            }
        }
    }

    /// One connection of the pool, as the seam sees it.
    private struct Connection: SQLExecutor {
        let connection: PostgresConnection
        let logger: Logger
        let prepared: PreparedStatements
        let tokenCounts: TokenCounts?

        var dialect: SQLDialect { .postgres }

        func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
            let rows = statement.isRepeated ? try await repeated(statement) : try await run(statement).rows
            guard let first = rows.first else { return [] }
            let columns = SQLColumns(first.map(\.columnName))
            return try rows.map { row in SQLRow(columns: columns, values: try row.map(PostgresDatabase.value)) }
        }

        func execute(_ statement: SQLStatement) async throws -> Int {
            try await run(statement).metadata.rows ?? 0
        }

        /// Runs `statement` prepared on this connection, each placeholder cast to its value's type as an unnamed
        /// statement's are typed.
        private func repeated(_ statement: SQLStatement) async throws -> [PostgresRow] {
            let binds = statement.values.map { value -> PostgresData in
                switch value {
                case .null: .null
                case .integer(let integer): PostgresData(int64: integer)
                case .real(let real): PostgresData(double: real)
                case .text(let text): PostgresData(string: text)
                }
            }
            return try await prepared.rows(statement, binds, on: connection)
        }

        private func run(_ statement: SQLStatement) async throws -> PostgresQueryResult {
            do {
                return try await connection.query(PostgresDatabase.query(statement), logger: logger).get()
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw SQLUniqueViolation()
            }
        }
    }

    /// `statement` as postgres-nio runs it.
    private static func query(_ statement: SQLStatement) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: statement.values.count)
        for value in statement.values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            }
        }
        return PostgresQuery(unsafeSQL: numberPlaceholders(statement.sql), binds: bindings)
    }

    /// A cell as the seam reads it: integers, floating point and booleans as numbers, text as text, anything else
    /// (a `tsvector`) as NULL; throws when its bytes do not hold its type. Results always come binary (a prepared
    /// statement's rows carry its Describe's text formats instead), and the common types are read from the bytes here:
    /// postgres-nio's generic decoding, after a copy of each cell to correct its format, made a circle page 6-8 % slower.
    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
        let value: SQLValue? = switch cell.dataType {
        case .int2: integer(bytes, as: Int16.self).map { .integer(Int64($0)) }
        case .int4: integer(bytes, as: Int32.self).map { .integer(Int64($0)) }
        case .int8: integer(bytes, as: Int64.self).map { .integer($0) }
        case .float4: integer(bytes, as: UInt32.self).map { .real(Double(Float(bitPattern: $0))) }
        case .float8: integer(bytes, as: UInt64.self).map { .real(Double(bitPattern: $0)) }
        case .bool: integer(bytes, as: UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case .text, .varchar, .name, .bpchar, .json: .text(String(buffer: bytes))
        case .jsonb: .text(try binary(cell).decode(String.self))
        case .numeric: .real(NSDecimalNumber(decimal: try binary(cell).decode(Decimal.self)).doubleValue)
        default: .null
        }
        guard let value else { throw SQLDecodingError(column: cell.columnName) }
        return value
    }

    /// The big-endian integer `bytes` hold; nil when they are not exactly its width.
    private static func integer<Integer: FixedWidthInteger>(_ bytes: ByteBuffer, as type: Integer.Type) -> Integer? {
        bytes.readableBytes == MemoryLayout<Integer>.size ? bytes.getInteger(at: bytes.readerIndex, as: type) : nil
    }

    /// `cell` marked binary, for postgres-nio to decode the types read here through it (`jsonb`, `numeric`).
    private static func binary(_ cell: PostgresCell) -> PostgresCell {
        var binary = cell
        binary.format = .binary
        return binary
    }

    /// The cast ``numberPlaceholders(_:typedAs:)`` gives a placeholder bound to `value`: its type's, as an unnamed
    /// statement's placeholders are typed; none for NULL, whose type is left to the server.
    static func cast(of value: SQLValue) -> String? {
        switch value {
        case .integer: "::int8"
        case .real: "::float8"
        case .text: "::text"
        case .null: nil
        }
    }

    /// `sql` with its `?` placeholders numbered `$1`, `$2`, ... (a `?` inside a quoted literal or name stays), each
    /// cast to the type of its value in `values` when given (`$1::int8`; a NULL's type is left to the server).
    static func numberPlaceholders(_ sql: String, typedAs values: [SQLValue]? = nil) -> String {
        // Bytes, not characters: the marks are ASCII, which no byte of a multi-byte UTF-8 character equals.
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                result.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                result.append(byte)
            } else if byte == UInt8(ascii: "?") {
                number += 1
                result.append(contentsOf: "$\(number)".utf8)
                if let cast = values.flatMap({ cast(of: $0[number - 1]) }) { result.append(contentsOf: cast.utf8) }
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
