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
}

/// A database: statements run on a pooled connection one at a time, or several on one connection.
public protocol SQLDatabase: SQLExecutor {
    /// Runs `body` on one connection reading one consistent snapshot (no writes).
    func read<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result
    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws (the error is
    /// rethrown as is). Rows read with ``SQLDialect/lockForUpdate`` stay locked until the end on PostgreSQL;
    /// SQLite's single writer needs no row locks.
    func transaction<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result
}

extension SQLExecutor {
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

    /// `IN (...)` over `values`, bound as one JSON array: `WHERE id \(dialect.inList(ids))`.
    public func inList(_ values: [String]) -> SQLStatement {
        let json = StoredList.encodeStrings(values)
        return backend == .postgres
            ? "IN (SELECT jsonb_array_elements_text(\(json)::jsonb))"
            : "IN (SELECT value FROM json_each(\(json)))"
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
