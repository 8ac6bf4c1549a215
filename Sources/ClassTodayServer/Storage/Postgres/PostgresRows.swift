import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Helpers of the PostgreSQL class and search code not yet written on the seam: transactions that rethrow the
/// closure's own error, statements with positional parameters built at run time, and reading a location.
package enum PostgresRows {
    /// Runs `body` in a transaction on a pooled connection, committing when it returns and rolling back when it
    /// throws. The error `body` threw is rethrown as is (not wrapped in `PostgresTransactionError`), so that
    /// domain errors keep their meaning.
    package static func transaction<Result: Sendable>(
        _ client: PostgresClient, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    /// Positional parameters of a statement built at run time: each ``bind(_:)`` appends a value and returns
    /// its `$n` placeholder, to be written into the SQL text.
    package struct Binds {
        /// The values bound so far, in placeholder order.
        private(set) var bindings = PostgresBindings()

        /// No values yet.
        package init() {}

        /// Appends `value` and returns its placeholder.
        package mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }

        /// Appends `value` (NULL when nil, its type then taken from the SQL context or a cast) and returns its
        /// placeholder.
        mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }

        /// The keyset condition of a newest-first page continuing after `cursor` (an integer key, then an id):
        /// rows whose (`key`, `id`) columns come after it in descending order; nil without such a cursor.
        mutating func newestFirst(after cursor: PageCursor?, key: String, id: String) -> String? {
            guard let cursor, let keyValue = cursor.values.first?.int, let idValue = cursor.values.last?.string else { return nil }
            let (afterKey, afterId) = (bind(keyValue), bind(idValue))
            return "(\(key) < \(afterKey) OR (\(key) = \(afterKey) AND \(id) < \(afterId)))"
        }

        /// The statement `sql` with these values.
        package func query(_ sql: String) -> PostgresQuery {
            PostgresQuery(unsafeSQL: sql, binds: bindings)
        }
    }

    /// A point from nullable `lat` and `lon` columns named `latColumn` and `lonColumn`.
    static func location(_ row: PostgresRandomAccessRow, lat latColumn: String = "lat", lon lonColumn: String = "lon") throws -> GeoPoint? {
        let lat = try row[latColumn].decode(Double?.self)
        let lon = try row[lonColumn].decode(Double?.self)
        return lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } }
    }
}
