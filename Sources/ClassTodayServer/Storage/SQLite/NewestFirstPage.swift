import ClassTodayCore
import Foundation
import GRDB

/// Pages of rows ordered newest first by `created_at`, then `id` (matches, reviews, alerts, notifications).
enum NewestFirstPage {
    /// One page of `source` (a SELECT whose rows have `created_at` and `id` columns, using `:named` arguments),
    /// continuing after the cursor, with the cursor of the next page under `ordering`.
    static func fetch<Item>(
        _ db: Database, from source: String, arguments: [String: (any DatabaseValueConvertible)?], page: PageRequest,
        ordering: String, decode: (Row) -> Item
    ) throws -> Page<Item> {
        var arguments = arguments
        arguments["limit"] = page.limit + 1
        var condition = ""
        if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
            condition = "WHERE r.created_at < :afterCreatedAt OR (r.created_at = :afterCreatedAt AND r.id < :afterId)"
            arguments["afterCreatedAt"] = createdAt
            arguments["afterId"] = id
        }
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM (\(source)) r \(condition) ORDER BY r.created_at DESC, r.id DESC LIMIT :limit",
                                    arguments: StatementArguments(arguments))
        let visible = rows.prefix(page.limit)
        let next = rows.count > page.limit ? visible.last.map { row in
            PageCursor(ordering: ordering, values: [.int(row["created_at"]), .string(row["id"])]).encoded
        } : nil
        return Page(items: visible.map(decode), nextCursor: next)
    }
}
