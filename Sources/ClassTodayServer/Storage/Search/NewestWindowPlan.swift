import ClassTodayCore
import Foundation

/// ``SearchPlanName/newestWindow``: a page by recency within a circle or box, read from the newest listings after the
/// cursor (``newestWindow`` of them) on the backend's recency index (``ClassSearchIndex/newestWindowHint``: SQLite's),
/// each checked for the area and the rest. Chosen where the backend names such an index; fast because a dense area's
/// page lies among the newest few thousand listings, where the area's geohash ranges read every listing of it. It
/// declines when the window holds less than a page: the area is sparse, and ``RangesInSortOrderPlan`` reads it.
struct NewestWindowPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let keys = try await keysFromNewestWindow(db, limit: page.limit + 1) else { return nil }
        return try await views(for: keys, db)
    }

    /// The keys of a page by recency within a circle or box read from the ``newestWindow`` newest listings after the
    /// cursor, on the backend's recency index (``ClassSearchIndex/newestWindowHint``), each checked for the area and
    /// the rest; nil when the backend reads no such window, or when the window holds fewer than `limit` of them: the
    /// area's listings are then few (or a filter leaves out most of them), and are read by its geohash ranges. Read by
    /// those ranges whatever their number, a page of a 10 km circle in Seoul took 0.9-1.5 s on SQLite (86 s cold; now
    /// 1.5-2.1 ms) and of 50 km with `수학` over 100 s (now 14-26 ms), as every listing of the area was read, and read
    /// again for each batch of a keyword's candidates.
    private func keysFromNewestWindow(_ db: any SQLExecutor, limit: Int) async throws -> [SearchKey]? {
        guard search.sort == .recent, search.circle != nil || search.box != nil, let hint = index.newestWindowHint else { return nil }
        // The floor counts the window's listings from the cursor's millisecond: those of it before the cursor too.
        let notAfter: SQLStatement = startPosition?.value.int.map { " AND c.created_at <= \($0)" } ?? ""
        let floor: Int64? = try await db.row("""
            SELECT c.created_at FROM classes c \(raw: hint) WHERE c.deleted_at IS NULL\(notAfter)
            ORDER BY c.created_at DESC LIMIT 1 OFFSET \(newestWindow - 1)
            """)?["created_at"]
        // Without a floor the window is every listing after the cursor, and what it holds is the page.
        let found = try await keys(db, ranges: nil, limit: limit, window: NewestWindow(floor: floor))
        return floor == nil || found.count >= limit ? found : nil
    }

    /// How many of the newest listings ``keysFromNewestWindow(_:limit:)`` checks: a fifth of ``confirming``, 4,000 by
    /// default. A window that misses costs about what reading the ranges of an area too sparse for it costs: on
    /// 1,000,000 classes, 20,000 made a page of 500 m by recency 19-20 ms instead of 3.
    private var newestWindow: Int { max(confirming / 5, 1) }
}
