/// One SQL statement and the values bound to it, written with `?` placeholders on every backend (PostgreSQL's
/// executor numbers them). Interpolation binds: `"SELECT * FROM users WHERE id = \(id)"` puts a `?` in the text and
/// `id` in ``values``; `\(raw: text)` inserts SQL text (dialect fragments, column names), never user input.
public struct SQLStatement: Sendable, ExpressibleByStringInterpolation {
    /// The SQL text, with a `?` for each bound value (never a `?` elsewhere: no jsonb `?` operators).
    public private(set) var sql: String
    /// The bound values, in placeholder order.
    public private(set) var values: [SQLValue]
    /// Whether SQLite keeps the prepared statement for later runs: true for fixed texts, false for texts built from
    /// varying parts (one-off statements would fill the cache).
    public var isCached = true
    /// Whether the statement runs many times in a row with other values (a nearest-first walk's cell statement):
    /// PostgreSQL then prepares it once per connection (``PreparedStatements``) instead of parsing and planning it
    /// at every run. SQLite prepares every cached text once anyway.
    public var isRepeated = false

    /// A statement from its text and values.
    public init(sql: String, values: [SQLValue] = []) {
        self.sql = sql
        self.values = values
    }

    /// A statement without values.
    public init(stringLiteral sql: String) {
        self.init(sql: sql)
    }

    /// A statement from an interpolated string.
    public init(stringInterpolation: StringInterpolation) {
        self.init(sql: stringInterpolation.sql, values: stringInterpolation.values)
    }

    /// Appends SQL text.
    public mutating func append(raw sql: String) {
        self.sql += sql
    }

    /// Appends `value` as a placeholder and returns nothing: `statement.append(bind: id)`.
    public mutating func append(bind value: some SQLValueConvertible) {
        sql += "?"
        values.append(value.sqlValue)
    }

    /// Binds `value` at the placeholder numbered `index` (from 0) instead of the value there: for a statement written
    /// once and run with other values.
    public mutating func rebind(at index: Int, to value: SQLValue) {
        values[index] = value
    }

    /// Appends another statement, text and values.
    public mutating func append(_ other: SQLStatement) {
        sql += other.sql
        values += other.values
    }

    /// Builds a statement from literal SQL and bound values.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var values: [SQLValue] = []

        /// Reserves room for the literal text.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount)
            values.reserveCapacity(interpolationCount)
        }

        /// Appends SQL text.
        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// Binds `value` at a placeholder.
        public mutating func appendInterpolation(_ value: some SQLValueConvertible) {
            sql += "?"
            values.append(value.sqlValue)
        }

        /// Binds an optional `value` at a placeholder (NULL for nil).
        public mutating func appendInterpolation<Value: SQLValueConvertible>(_ value: Value?) {
            sql += "?"
            values.append(value.sqlValue)
        }

        /// Inserts SQL text as is (a dialect fragment, a column name), never user input.
        public mutating func appendInterpolation(raw sql: String) {
            self.sql += sql
        }

        /// Inserts another statement, text and values.
        public mutating func appendInterpolation(_ statement: SQLStatement) {
            sql += statement.sql
            values += statement.values
        }
    }
}

extension [SQLStatement] {
    /// The statements joined by `separator` (SQL text: `" AND "`). Named apart from the standard library's
    /// `joined(separator:)`, which would otherwise join strings meant as SQL into one bound value.
    func joined(with separator: String) -> SQLStatement {
        var result: SQLStatement = ""
        for (position, statement) in enumerated() {
            if position > 0 { result.append(raw: separator) }
            result.append(statement)
        }
        return result
    }
}
