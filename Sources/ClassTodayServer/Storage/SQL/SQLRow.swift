import Foundation

/// A value bound to a statement or read from a row: the storage classes both backends share (booleans are integers,
/// lists are JSON text).
public enum SQLValue: Sendable, Hashable {
    /// NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// Text.
    case text(String)
}

/// A Swift value that binds to a statement.
public protocol SQLValueConvertible {
    /// The value as bound.
    var sqlValue: SQLValue { get }
}

/// A Swift value read from a column.
public protocol SQLValueDecodable {
    /// Decodes `value`, or nil when it has another type.
    init?(sqlValue value: SQLValue)
}

/// One row of a result, read by column name: `let id: String = try row["id"]`.
public struct SQLRow: Sendable {
    /// The result's column names, shared by its rows.
    private let columns: SQLColumns
    /// The values, in column order.
    private let values: [SQLValue]

    /// A row of `values` under `columns`.
    init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The raw value of `column`; throws when the result has no such column.
    public func value(_ column: String) throws -> SQLValue {
        guard let index = columns.index[column] else { throw SQLDecodingError(column: column) }
        return values[index]
    }

    /// The position of `column`, looked for first at `expected`: a row read in the order its statement selects the
    /// columns (``SQLRowReader``) finds each where expected, with no lookup by name.
    func position(of column: String, expected: Int) -> Int? {
        if expected < values.count, columns.names[expected] == column { return expected }
        return columns.index[column]
    }

    /// The value at `position` (from ``position(of:expected:)``).
    func value(at position: Int) -> SQLValue {
        values[position]
    }

    /// Whether the result has `column`.
    public func contains(_ column: String) -> Bool {
        columns.index[column] != nil
    }

    /// The value of `column` as `Value`; throws when the column is missing or holds another type.
    public subscript<Value: SQLValueDecodable>(_ column: String) -> Value {
        get throws {
            guard let value = Value(sqlValue: try value(column)) else { throw SQLDecodingError(column: column) }
            return value
        }
    }
}

/// The column names of a result and their positions.
final class SQLColumns: Sendable {
    /// The names, in order.
    let names: [String]
    /// Position by name (the first column of a repeated name).
    let index: [String: Int]

    /// The columns `names`, in order.
    init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil {
            index[name] = position
        }
        self.index = index
    }
}

/// Reads a row's columns one after another, each by name, in the order its statement selects them: each name is
/// checked against the column after the last one read, and looked up by name only where the statement's order differs.
/// Decoders of rows that many statements read in bulk (a page's listings) read with it: a lookup by name, hashing the
/// name, cost more than the value read.
struct SQLRowReader {
    /// The row.
    let row: SQLRow
    /// Where the next column is expected.
    private var next = 0

    /// A reader at the row's first column.
    init(_ row: SQLRow) {
        self.row = row
    }

    /// The value of `column` as `Value`; throws when the row has no such column or it holds another type.
    mutating func read<Value: SQLValueDecodable>(_ column: String) throws -> Value {
        guard let position = row.position(of: column, expected: next) else { throw SQLDecodingError(column: column) }
        return try read(column, at: position)
    }

    /// The value of `column` as `Value`, nil when the row has no such column (a statement that does not select it).
    mutating func readIfSelected<Value: SQLValueDecodable>(_ column: String) throws -> Value? {
        guard let position = row.position(of: column, expected: next) else { return nil }
        return try read(column, at: position) as Value
    }

    /// The value of `column`, found at `position`, as `Value`; the next column is expected after it.
    private mutating func read<Value: SQLValueDecodable>(_ column: String, at position: Int) throws -> Value {
        next = position + 1
        guard let value = Value(sqlValue: row.value(at: position)) else { throw SQLDecodingError(column: column) }
        return value
    }
}

/// A column was missing from a row, or held a value of another type than the one read.
struct SQLDecodingError: Error {
    /// The column.
    let column: String
}

extension String: SQLValueConvertible, SQLValueDecodable {
    /// The value as bound.
    public var sqlValue: SQLValue { .text(self) }

    /// Decodes text.
    public init?(sqlValue value: SQLValue) {
        guard case .text(let text) = value else { return nil }
        self = text
    }
}

extension Int64: SQLValueConvertible, SQLValueDecodable {
    /// The value as bound.
    public var sqlValue: SQLValue { .integer(self) }

    /// Decodes an integer.
    public init?(sqlValue value: SQLValue) {
        guard case .integer(let integer) = value else { return nil }
        self = integer
    }
}

extension Int: SQLValueConvertible, SQLValueDecodable {
    /// The value as bound.
    public var sqlValue: SQLValue { .integer(Int64(self)) }

    /// Decodes an integer.
    public init?(sqlValue value: SQLValue) {
        guard case .integer(let integer) = value else { return nil }
        self = Int(integer)
    }
}

extension Double: SQLValueConvertible, SQLValueDecodable {
    /// The value as bound.
    public var sqlValue: SQLValue { .real(self) }

    /// Decodes a number (an integer too: SQLite stores whole doubles of some expressions as integers).
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        default: return nil
        }
    }
}

extension Bool: SQLValueConvertible, SQLValueDecodable {
    /// The value as bound: 1 or 0.
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }

    /// Decodes an integer: true unless 0.
    public init?(sqlValue value: SQLValue) {
        guard case .integer(let integer) = value else { return nil }
        self = integer != 0
    }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    /// The value as bound: NULL for nil.
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLValueDecodable where Wrapped: SQLValueDecodable {
    /// Decodes NULL as nil, anything else as `Wrapped`.
    public init?(sqlValue value: SQLValue) {
        if case .null = value {
            self = .none
        } else if let wrapped = Wrapped(sqlValue: value) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
