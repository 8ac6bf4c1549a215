import ClassTodayCore

/// ``SearchPlanName/rangesInSortOrder``: a page in its sort order (newest first, or by distance without a circle) read
/// with keyset statements over the geohash ranges covering the search's circle or box, or over every listing without
/// either, each statement checking every filter and the keyword's index condition, in batches while a keyword is
/// confirmed in Swift. Chosen for the searches no other plan serves, and when ``NewestWindowPlan`` declines; fast where
/// the area is small or sparse, as its ranges bound what is read.
struct RangesInSortOrderPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        try await views(for: keys(db, ranges: coveringRanges, limit: page.limit + 1), db)
    }
}
