import ClassTodayCore

/// Pages of rows ordered newest first by `created_at`, then `id` (alerts, notifications), on either backend.
enum SQLPage {
    /// One page of `source` (a SELECT whose rows have `created_at` and `id` columns), continuing after the cursor,
    /// with the cursor of the next page under `ordering`.
    static func newestFirst<Item>(
        _ executor: any SQLExecutor, from source: SQLStatement, page: PageRequest, ordering: String,
        decode: (SQLRow) throws -> Item
    ) async throws -> Page<Item> {
        var statement: SQLStatement = "SELECT * FROM (\(source)) r"
        if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
            statement.append(" WHERE r.created_at < \(createdAt) OR (r.created_at = \(createdAt) AND r.id < \(id))")
        }
        statement.append(" ORDER BY r.created_at DESC, r.id DESC LIMIT \(page.limit + 1)")
        let rows = try await executor.rows(statement)
        let visible = rows.prefix(page.limit)
        var next: String?
        if rows.count > page.limit, let last = visible.last {
            next = PageCursor(ordering: ordering, values: [.int(try last["created_at"]), .string(try last["id"])]).encoded
        }
        return Page(items: try visible.map(decode), nextCursor: next)
    }
}
