import ClassTodayCore

/// The ways a page of a search can be answered, each a plan of its own (``SearchPlan``), named as `classtoday explain`
/// and the search bench print them.
package enum SearchPlanName: String, Sendable, CaseIterable {
    /// The backend's nearest-first index order (``NearestIndexOrderPlan``).
    case nearestIndexOrder
    /// A common keyword's hits in the backend's nearest-first index order (``CommonKeywordIndexOrderPlan``).
    case commonKeywordIndexOrder
    /// A walk of the circle's cells over the listings' points in memory (``PointWalkPlan``).
    case pointWalk
    /// A walk of the circle's cells over a keyword's hits placed by the listings' points (``KeywordHitsByPointsPlan``).
    case keywordHitsByPoints
    /// A walk of the circle's cells with one statement per cell (``CellWalkPlan``).
    case cellWalk
    /// All of a rare keyword's hits at once, sorted by distance (``AllKeywordHitsPlan``).
    case allKeywordHits
    /// The name tier's hits, then the description tier's, newest first (``RelevanceTiersPlan``).
    case relevanceTiers
    /// The newest listings on the recency index, checked for the area (``NewestWindowPlan``).
    case newestWindow
    /// Keyset statements over the area's geohash ranges in sort order (``RangesInSortOrderPlan``).
    case rangesInSortOrder

    /// Whether the plan leaves out the viewer's blocked writers in its own statements, so that the search needs not
    /// read them first (``SQLClassSearch/blockedWriters``).
    var leavesOutBlocksItself: Bool {
        self == .nearestIndexOrder || self == .commonKeywordIndexOrder
    }
}

/// Decides which plans may answer a page of a search, from the search and what the backend can do: whether its index
/// has a nearest-first order (``ClassSearchIndex/nearestOrder(within:)``) or a recency index to read windows on
/// (``ClassSearchIndex/newestWindowHint``), and whether the read keeps the listings' points in memory
/// (``SQLExecutor/classPoints``). Some plans can tell only by reading whether they answer a page (a cursor the points
/// cannot continue, a keyword less common than the index order needs): those decline, and the next plan answers.
struct SearchPlanner {
    /// The search.
    let search: ClassSearch
    /// The backend's keyword index.
    let index: any ClassSearchIndex
    /// Whether the read keeps the listings' points in memory (SQLite's ``ClassPointIndex``).
    let keepsPoints: Bool
    /// Whether a walk may read a keyword's hits at once (``SQLClassSearch/fewHits`` above 0; tests set 0 to walk every
    /// cell with statements).
    let readsHitsAtOnce: Bool

    /// The plans to try, in order; the last answers every page.
    var plans: [SearchPlanName] {
        if search.sort == .distance, let circle = search.circle {
            return nearestFirst(within: circle)
        } else if search.sort == .relevance, search.keyword != nil {
            return [.relevanceTiers]
        } else if search.sort == .recent, search.circle != nil || search.box != nil, index.newestWindowHint != nil {
            return [.newestWindow, .rangesInSortOrder]
        }
        return [.rangesInSortOrder]
    }

    /// The plans of a page by distance within `circle`.
    private func nearestFirst(within circle: ClassSearch.Circle) -> [SearchPlanName] {
        var plans: [SearchPlanName] = []
        let hasOrder = index.nearestOrder(within: circle) != nil
        if hasOrder, search.keyword == nil, search.keywordLocation == nil { plans.append(.nearestIndexOrder) }
        if hasOrder, search.keyword != nil, search.filtersOnlyByStatusAndType { plans.append(.commonKeywordIndexOrder) }
        if keepsPoints, search.keywordLocation == nil {
            if search.keyword == nil {
                plans.append(.pointWalk)
            } else if readsHitsAtOnce {
                plans.append(.keywordHitsByPoints)
            }
        }
        return plans + [.cellWalk]
    }
}

extension ClassSearch {
    /// Whether the search has no filter but status and type beside its area and keyword: no district, box, subjects,
    /// targets, days or prices, which leave a keyword's hits fewer than its share of the listings says.
    var filtersOnlyByStatusAndType: Bool {
        !filtersBeyondPrices && minPrice == nil && maxPrice == nil
    }

    /// Whether the search has a filter beyond status, type and prices: a district, a box, subjects, targets or days.
    var filtersBeyondPrices: Bool {
        keywordLocation != nil || box != nil || subjects != nil || targets != nil || days != nil
    }
}
