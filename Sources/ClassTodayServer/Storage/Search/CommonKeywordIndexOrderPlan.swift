import ClassTodayCore
import Foundation

/// ``SearchPlanName/commonKeywordIndexOrder``: a keyword's page by distance within a circle, read in the backend's
/// nearest-first index order (``NearestIndexOrderPlan``), the keyword's condition checked on a bounded reach of the
/// nearest listings. Chosen when the backend has that order and no filter but status and type narrows the hits; it
/// answers when the index finds the word so common that a page's hits lie among the nearest few listings
/// (``ClassSearchIndex/nearestReach(of:wanted:_:)``), and is fast there because a walk would intersect the word's
/// many hits with every cell's tokens. It declines otherwise, or when the reach settles no page.
struct CommonKeywordIndexOrderPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let circle = search.circle else { return nil }
        return try await commonKeywordPageByIndex(db, circle: circle)
    }

    /// A nearest-first page of a keyword's hits read in the index's order, as ``NearestIndexOrderPlan/pageByIndex(_:order:circle:reach:)``
    /// reads one, when the index finds the keyword common enough (``ClassSearchIndex/nearestReach(of:wanted:_:)``) and
    /// no filter but status and type narrows the hits; nil otherwise, or when the read reached its most listings before
    /// the page settled: the walk reads the page then.
    private func commonKeywordPageByIndex(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> Page<ClassView>? {
        let nearest = NearestIndexOrderPlan(query: query)
        guard let keyword = search.keyword, search.filtersOnlyByStatusAndType, let order = index.nearestOrder(within: circle),
              let reach = try await index.nearestReach(of: keyword, wanted: nearest.firstNearestLimit, db)
        else { return nil }
        let clause = index.keyword(keyword, withinRanges: false)
        return try await nearest.pageByIndex(db, order: order, circle: circle, reach: NearestIndexOrderPlan.Reach(listings: reach, keyword: clause))
    }
}
