import ClassTodayCore
import Foundation

extension SearchPlan {
    /// The ordering name cursors of this search carry.
    var ordering: String { search.sort.rawValue }

    /// The page of listings for the keys (fetched with `limit + 1`: the extra key only says there is more), as
    /// ``page(of:views:resumingAfter:)`` makes it.
    func views(for keys: [SearchKey], resumingAfter resumeAfter: SearchKey? = nil, _ db: any SQLExecutor) async throws -> Page<ClassView> {
        page(of: keys, views: try await ClassViewQuery.views(ids: keys.prefix(page.limit).map(\.id), viewerId: viewerId, db),
             resumingAfter: resumeAfter)
    }

    /// The page of `keys` (fetched with `limit + 1`), each with its listing among `fetched` (those missing left out). Its
    /// cursor follows the last of them when there is one more; otherwise it follows `resumeAfter`, where a walk that
    /// ended the page early stood, if any.
    func page(of keys: [SearchKey], views fetched: [ClassView], resumingAfter resumeAfter: SearchKey? = nil) -> Page<ClassView> {
        let visible = Array(keys.prefix(page.limit))
        // Positions, not views: a dictionary of views copied each one in and out.
        var positions: [String: Int] = [:]
        positions.reserveCapacity(fetched.count)
        for (position, view) in fetched.enumerated() where positions[view.listing.id] == nil {
            positions[view.listing.id] = position
        }
        let items = visible.compactMap { key in
            positions[key.id].map {
                let view = fetched[$0]
                return ClassView(listing: view.listing, writer: view.writer, isFavorite: view.isFavorite, distance: key.distance)
            }
        }
        let after = keys.count > page.limit ? visible.last : resumeAfter
        return Page(items: items, nextCursor: after.map { PageCursor(ordering: ordering, values: $0.values + [.string($0.id)]).encoded })
    }
}
