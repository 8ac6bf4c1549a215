import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Helpers shared by the PostgreSQL user, session, image, chat and match repositories: transactions that
/// rethrow the closure's own error, statements with positional parameters built at run time, newest-first
/// paging (the port of ``NewestFirstPage``) and the decoders of rows those repositories share.
package enum PostgresRows {
    /// The SQLSTATE of a unique constraint violation.
    static let uniqueViolation = "23505"

    /// Whether `error` is a server error reporting a unique constraint violation.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == uniqueViolation
    }

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

    /// Every row of `rows`, each readable by column name.
    static func all(_ rows: PostgresRowSequence) async throws -> [PostgresRandomAccessRow] {
        try await rows.collect().map { $0.makeRandomAccess() }
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

    /// One page of `source` (a SELECT whose rows have `created_at` and `id` columns, its placeholders bound in
    /// `binds`), newest first by `created_at` then `id`, continuing after the cursor, with the cursor of the next
    /// page under `ordering`. The port of ``NewestFirstPage/fetch(_:from:arguments:page:ordering:decode:)``.
    static func newestFirstPage<Item: Sendable>(
        _ client: PostgresClient, logger: Logger, from source: String, binds: Binds, page: PageRequest, ordering: String,
        decode: (PostgresRandomAccessRow) throws -> Item
    ) async throws -> Page<Item> {
        var binds = binds
        let condition = binds.newestFirst(after: page.after, key: "r.created_at", id: "r.id").map { "WHERE " + $0 } ?? ""
        let limit = binds.bind(page.limit + 1)
        let rows = try await all(client.query(
            binds.query("SELECT * FROM (\(source)) r \(condition) ORDER BY r.created_at DESC, r.id DESC LIMIT \(limit)"),
            logger: logger))
        let visible = Array(rows.prefix(page.limit))
        var next: String?
        if rows.count > page.limit, let last = visible.last {
            next = PageCursor(ordering: ordering, values: [.int(try last["created_at"].decode(Int64.self)),
                                                           .string(try last["id"].decode(String.self))]).encoded
        }
        return Page(items: try visible.map(decode), nextCursor: next)
    }

    /// A point from nullable `lat` and `lon` columns named `latColumn` and `lonColumn`.
    static func location(_ row: PostgresRandomAccessRow, lat latColumn: String = "lat", lon lonColumn: String = "lon") throws -> GeoPoint? {
        let lat = try row[latColumn].decode(Double?.self)
        let lon = try row[lonColumn].decode(Double?.self)
        return lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } }
    }

    /// The rating from a sum of grades and their count.
    static func rating(sum: Double, count: Int) -> Rating {
        Rating(average: count == 0 ? 0 : sum / Double(count), count: count)
    }

    /// Decodes a `chat_rooms` row.
    static func room(_ row: PostgresRandomAccessRow) throws -> ChatRoom {
        ChatRoom(
            id: try row["id"].decode(String.self), classId: try row["class_id"].decode(String.self),
            sellerId: try row["seller_id"].decode(String.self), buyerId: try row["buyer_id"].decode(String.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            lastSeq: try row["last_seq"].decode(Int.self),
            lastActivityAt: Date(millisecondsSince1970: try row["last_activity_at"].decode(Int64.self)),
            sellerReadSeq: try row["seller_read_seq"].decode(Int.self), buyerReadSeq: try row["buyer_read_seq"].decode(Int.self))
    }

    /// Decodes a message from columns named `prefix` + the `chat_messages` column names, in room `roomId`
    /// (read from `room_id` when nil).
    static func message(_ row: PostgresRandomAccessRow, prefix: String = "", roomId: String? = nil) throws -> ChatMessage {
        ChatMessage(
            id: try row[prefix + "id"].decode(String.self), roomId: try roomId ?? row["room_id"].decode(String.self),
            seq: try row[prefix + "seq"].decode(Int.self), senderId: try row[prefix + "sender_id"].decode(String.self),
            kind: MessageKind(rawValue: try row[prefix + "kind"].decode(String.self)) ?? .text,
            text: try row[prefix + "text"].decode(String?.self), imageId: try row[prefix + "image_id"].decode(String?.self),
            clientId: try row[prefix + "client_id"].decode(String?.self),
            sentAt: Date(millisecondsSince1970: try row[prefix + "sent_at"].decode(Int64.self)))
    }
}
