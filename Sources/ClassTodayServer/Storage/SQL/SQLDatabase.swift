import ClassTodayCore

/// The backend seam: what the repositories need from a database, written once over SQLite (GRDB) and PostgreSQL
/// (postgres-nio). A statement runs with bound values and returns rows; ``SQLDatabase/read(_:)`` and
/// ``SQLDatabase/transaction(_:)`` lend one connection for several statements; ``SQLDialect`` holds the few SQL
/// fragments that differ. Everything else (the SQL of the repositories, the rules, the decoding) is shared.
public protocol SQLExecutor: Sendable {
    /// The SQL fragments of this backend.
    var dialect: SQLDialect { get }
    /// Runs `statement` and returns its rows. A unique constraint violation throws ``SQLUniqueViolation``.
    func rows(_ statement: SQLStatement) async throws -> [SQLRow]
    /// Runs `statement` and returns how many rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ statement: SQLStatement) async throws -> Int
    /// The listings' points the backend keeps in memory for nearest-first circles, when this executor reads one
    /// snapshot and the backend keeps them (SQLite's ``ClassPointIndex``); nil walks the circle with statements.
    var classPoints: ClassPointIndex? { get }
    /// The counts of keyword tokens the backend keeps in memory for a search to weigh its index query by
    /// (``TokenCounts``); nil leaves the query as it is.
    var tokenCounts: TokenCounts? { get }
}

/// A database: statements run on a pooled connection one at a time, or several on one connection.
public protocol SQLDatabase: SQLExecutor {
    /// Runs `body` on one connection reading one consistent snapshot (no writes).
    func read<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result
    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws (the error is
    /// rethrown as is). Rows read with ``SQLDialect/lockForUpdate`` stay locked until the end on PostgreSQL;
    /// SQLite's single writer needs no row locks.
    func transaction<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result
    /// Removes the traces that committed deletions leave in files this node keeps (an erased account): SQLite empties
    /// its write-ahead log into the database file. PostgreSQL's log and files are the server's, recycled by it: nothing.
    func purgeDeletedData() async throws
}

extension SQLExecutor {
    public var classPoints: ClassPointIndex? { nil }

    public var tokenCounts: TokenCounts? { nil }

    /// The first row of `statement`, if any.
    public func row(_ statement: SQLStatement) async throws -> SQLRow? {
        try await rows(statement).first
    }
}

/// The SQL that differs between the backends; the rest of every statement is written once.
public struct SQLDialect: Sendable {
    /// Which backend this is.
    public enum Backend: Sendable {
        /// SQLite through GRDB.
        case sqlite
        /// PostgreSQL through postgres-nio.
        case postgres
    }

    /// Which backend this is.
    public let backend: Backend

    /// Appended to a SELECT whose rows the transaction goes on to change: `FOR UPDATE` on PostgreSQL, where writers
    /// on several nodes must wait for each other; nothing on SQLite, whose one writer already excludes the others.
    public var lockForUpdate: String {
        backend == .postgres ? "FOR UPDATE" : ""
    }

    /// Like ``lockForUpdate``, for changes that keep the row's key (`FOR NO KEY UPDATE`: rows referencing it may
    /// still be inserted meanwhile).
    public var lockForNoKeyUpdate: String {
        backend == .postgres ? "FOR NO KEY UPDATE" : ""
    }

    /// A subquery of one `value` column holding `values`, bound as one JSON array: `WHERE id IN \(dialect.list(ids))`,
    /// or a row source `FROM \(dialect.list(cells)) cell`.
    public func list(_ values: [String]) -> SQLStatement {
        let json = StoredList.encodeStrings(values)
        return backend == .postgres
            ? "(SELECT jsonb_array_elements_text(\(json)::jsonb) AS value)"
            : "(SELECT value FROM json_each(\(json)))"
    }

    /// The type of a column of ``rows(_:types:)``, named as PostgreSQL casts to it.
    public enum ColumnType: String, Sendable {
        /// Text.
        case text
        /// A 64-bit integer.
        case integer = "bigint"
        /// A double.
        case real = "float8"
    }

    /// `rows`, each holding one value per entry of `types`, as the body of a `WITH name(columns) AS (...)` clause: a
    /// batch written by one statement whatever its size. SQLite binds every value (`VALUES (?, ...), ...`); PostgreSQL
    /// binds the rows as one JSON array of arrays, one value to send and parse instead of thousands of parameters.
    /// On SQLite the text depends on the number of rows: a statement holding it should not be cached when that varies.
    public func rows(_ rows: [[SQLValue]], types: [ColumnType]) -> SQLStatement {
        guard backend == .postgres else {
            let tuple = "(" + Array(repeating: "?", count: types.count).joined(separator: ", ") + ")"
            return SQLStatement(sql: "VALUES " + Array(repeating: tuple, count: rows.count).joined(separator: ", "),
                                values: rows.flatMap { $0 })
        }
        var json = "["
        for (index, row) in rows.enumerated() {
            json += index == 0 ? "[" : ",["
            for (column, value) in row.enumerated() {
                if column > 0 { json += "," }
                switch value {
                case .null: json += "null"
                case .integer(let integer): json += String(integer)
                case .real(let real): json += real.isFinite ? String(real) : "null"
                case .text(let text): JSONString.append(text, to: &json)
                }
            }
            json += "]"
        }
        json += "]"
        let columns = types.enumerated().map { "(value->>\($0.offset))::\($0.element.rawValue)" }.joined(separator: ", ")
        return "SELECT \(raw: columns) FROM jsonb_array_elements(\(json)::jsonb)"
    }

    /// Like ``lockForUpdate``, skipping rows another transaction holds instead of waiting (a queue several nodes
    /// take from).
    public var lockSkippingLocked: String {
        backend == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
    }

    /// Whether a `WITH` clause may hold INSERT, UPDATE and DELETE statements (PostgreSQL), so that several writes
    /// reach the server as one statement; on SQLite they run one after the other.
    public var hasWritingWith: Bool { backend == .postgres }

    /// The literals of a boolean column (PostgreSQL's `boolean`, SQLite's 0 and 1).
    public var trueLiteral: String { backend == .postgres ? "true" : "1" }
    /// See ``trueLiteral``.
    public var falseLiteral: String { backend == .postgres ? "false" : "0" }

    /// The haversine distance in meters between two points given as SQL expressions (columns, or bound values: an
    /// expression may be repeated, its values bound at each place), NULL when a coordinate is NULL. It agrees with
    /// ``Haversine/distance(_:_:)``: SQLite calls it (`ct_distance`); PostgreSQL evaluates the same operations in the
    /// same order (radius ``Haversine/earthRadiusMeters``) in IEEE double precision with the C library's `sin`,
    /// `cos`, `atan2` and `sqrt`, so that SQL and Swift agree to within floating point (in practice bit for bit).
    public func distance(lat1: SQLStatement, lon1: SQLStatement, lat2: SQLStatement, lon2: SQLStatement) -> SQLStatement {
        guard backend == .postgres else { return "ct_distance(\(lat1), \(lon1), \(lat2), \(lon2))" }
        func radians(_ degrees: SQLStatement) -> SQLStatement { "((\(degrees))::float8 * pi() / 180::float8)" }
        let (phi1, phi2) = (radians(lat1), radians(lat2))
        let halfDeltaLat: SQLStatement = "((\(phi2) - \(phi1)) / 2::float8)"
        let halfDeltaLon: SQLStatement = "(\(radians("(\(lon2))::float8 - (\(lon1))::float8")) / 2::float8)"
        let halfLatSum: SQLStatement = "((\(phi1) + \(phi2)) / 2::float8)"
        let (sinLat, cosLat): (SQLStatement, SQLStatement) = ("sin(\(halfDeltaLat))", "cos(\(halfDeltaLat))")
        let (sinLon, cosLon): (SQLStatement, SQLStatement) = ("sin(\(halfDeltaLon))", "cos(\(halfDeltaLon))")
        let sinSum: SQLStatement = "sin(\(halfLatSum))"
        let haversine: SQLStatement = "\(sinLat) * \(sinLat) + cos(\(phi1)) * cos(\(phi2)) * \(sinLon) * \(sinLon)"
        let complement: SQLStatement = "\(cosLat) * \(cosLat) * \(cosLon) * \(cosLon) + \(sinSum) * \(sinSum) * \(sinLon) * \(sinLon)"
        let radius = String(Haversine.earthRadiusMeters)
        return """
            (2::float8 * atan2(sqrt(greatest(0::float8, \(haversine))), sqrt(greatest(0::float8, \(complement)))) \
            * \(raw: radius)::float8)
            """
    }

    /// A subquery of the JSON array text of `column` over the rows of `source` (a FROM clause with its conditions)
    /// in `order`: `[]` when there are none.
    public func jsonArray(of column: String, from source: String, orderBy order: String) -> String {
        backend == .postgres
            ? "(SELECT COALESCE(json_agg(\(column) ORDER BY \(order)), '[]'::json)::text FROM \(source))"
            : "(SELECT json_group_array(value) FROM (SELECT \(column) AS value FROM \(source) ORDER BY \(order)))"
    }

    /// Appended to a text operand of ORDER BY or a comparison to compare by bytes, as SQLite always does
    /// (PostgreSQL's default collation may not).
    public var byteOrder: String {
        backend == .postgres ? #"COLLATE "C""# : ""
    }

    /// A statement that waits for a lock on (`space`, hash of `key`) held until the transaction ends, on PostgreSQL
    /// (an advisory lock); nil on SQLite, whose one writer excludes the others already.
    public func transactionLock(space: Int, key: String) -> SQLStatement? {
        backend == .postgres ? "SELECT pg_advisory_xact_lock(\(space)::int4, hashtext(\(key)))" : nil
    }

    /// SQLite.
    public static let sqlite = SQLDialect(backend: .sqlite)
    /// PostgreSQL.
    public static let postgres = SQLDialect(backend: .postgres)
}

/// A statement broke a unique constraint (a primary key or a unique index).
public struct SQLUniqueViolation: Error {
    /// Creates the error.
    public init() {}
}
