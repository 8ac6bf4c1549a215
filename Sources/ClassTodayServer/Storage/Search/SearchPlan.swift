import ClassTodayCore
import Foundation

/// One way of answering a page of a ``SQLClassSearch``, named by ``SearchPlanName`` and chosen by ``SearchPlanner``.
/// A plan reads the search's state through ``query``; what every plan shares (the search's conditions, the statement
/// over `classes c`, the keys' reading and the page's settling) is written once in this protocol's extensions.
protocol SearchPlan {
    /// The search this plan answers a page of.
    var query: SQLClassSearch { get }
    /// The page, or nil when the plan finds that it cannot answer this page after all: the planner's next plan does.
    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>?
}

extension SearchPlan {
    /// The search: filters, area, keyword and order.
    var search: ClassSearch { query.search }
    /// The page asked for.
    var page: PageRequest { query.page }
    /// Who asks, whose blocks and favourites apply.
    var viewerId: String? { query.viewerId }
    /// The backend's SQL.
    var dialect: SQLDialect { query.dialect }
    /// The backend's keyword index.
    var index: any ClassSearchIndex { query.dialect.classIndex }
    /// The most candidates a page confirms or examines (``SQLClassSearch/confirming``).
    var confirming: Int { query.confirming }
    /// The most keyword hits a walk reads at once (``SQLClassSearch/fewHits``).
    var fewHits: Int { query.fewHits }
    /// The writers the viewer must not see, left out in Swift (``SQLClassSearch/blockedWriters``).
    var blockedWriters: Set<String> { query.blockedWriters }
    /// Where the search records what it did, if anywhere.
    var trace: SearchTrace? { query.trace }

    /// The position the page request continues after, if any.
    var startPosition: SearchPosition? {
        guard let after = page.after, let value = after.values.first, let id = after.values.last?.string else { return nil }
        return SearchPosition(value: value, id: id)
    }

    /// The geohash ranges covering the search's circle or box; nil without either.
    var coveringRanges: [GeohashRange]? {
        search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) } ?? search.box.map(GeohashCover.box)
    }

    /// Whether every point of `cell` comes before the page's cursor in a walk of `circle`, so that the cell holds
    /// nothing for the page (``GeohashCover/maximumDistance(from:to:)``).
    func liesBeforeCursor(_ cell: Geohash, of circle: ClassSearch.Circle) -> Bool {
        guard let after = startPosition?.value.double else { return false }
        return GeohashCover.maximumDistance(from: circle.center, to: cell.bounds) < after
    }

    /// Whether a nearest-first key whose distance was read without the walk's conditions may be on this page: within
    /// `circle` and after the cursor's last key (nothing follows a cursor whose distance is no number).
    func isOnPage(_ key: SearchKey, within circle: ClassSearch.Circle) -> Bool {
        guard let distance = key.distance, distance <= circle.radius else { return false }
        guard let position = startPosition else { return true }
        guard let after = position.value.double else { return false }
        return (distance, key.id) > (after, position.id)
    }
}
