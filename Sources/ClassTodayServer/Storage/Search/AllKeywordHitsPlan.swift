import ClassTodayCore
import Foundation

/// ``SearchPlanName/allKeywordHits``: a keyword's page by distance read from all of its hits at once, sorted by
/// distance here, when ``SQLClassSearch/fewHits`` at most pass the search's filters. Never chosen first: the cell walk
/// (``CellWalkPlan``) hands its page over when a keyword that needs confirming has found less than a quarter of its
/// page in its first cells. Fast there because each of the walk's cell statements costs about as much as the keyword's
/// own intersection, and a word whose matches are few and far apart made the walk read every cell of a large circle.
struct AllKeywordHitsPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let keys = try await keysFromHits(db) else { return nil }
        return try await views(for: keys, db)
    }

    /// The keys of a keyword's nearest-first page read from all of its hits at once, when ``fewHits`` at most pass the
    /// search's filters; nil otherwise, and the walk goes on. Each of a walk's cell statements intersects the keyword's
    /// tokens with the cell's, which costs about as much as the keyword's own intersection: a word whose matches are few
    /// and far apart, or none, made the walk read every cell of a large circle (114 statements for `없는말` within
    /// 50 km, 0.5 s). The index first says whether the hits may be few (``ClassSearchIndex/mayHoldFewHits(of:atMost:_:)``);
    /// then one statement reads every hit, ``fewHits`` + 1 at most, by key and distance, with its text when the keyword
    /// needs confirming (the rows the index read are read anyway); those within the circle after the cursor are sorted
    /// here, nearest first, and confirmed in that order until the page is full.
    func keysFromHits(_ db: any SQLExecutor) async throws -> [SearchKey]? {
        guard let keyword = search.keyword, fewHits > 0, let circle = search.circle, let area = areaConditions(ranges: nil),
              let distance = area.distance, try await index.mayHoldFewHits(of: keyword, atMost: fewHits, db)
        else { return nil }
        // The index's condition alone, the limit before any other: a keyword's SQL confirmation (SQLite's) would confirm
        // every hit, near or far, and a distance condition would read every hit to count those within.
        let conditions = ["c.deleted_at IS NULL", index.keyword(keyword, withinRanges: false).condition] + filterConditions + area.conditions
        let text: SQLStatement = keyword.needsVerification ? ", c.name, c.description" : ""
        let rows = try await db.rows("""
            SELECT \(keyColumns), \(distance) AS distance\(text) FROM classes c WHERE \(conditions.joined(with: " AND ")) LIMIT \(fewHits + 1)
            """)
        guard rows.count <= fewHits else { return nil }
        trace?.examined(rows.count)
        let hits = try rows.map { try SearchKey(row: $0, sort: .distance) }.filter { isOnPage($0, within: circle) }
            .sorted(by: SearchKey.isNearer)
        let confirming = keyword.needsVerification ? keyword : nil
        return Array(hits.lazy.filter { accepts($0, confirming: confirming) }.prefix(page.limit + 1))
    }
}
