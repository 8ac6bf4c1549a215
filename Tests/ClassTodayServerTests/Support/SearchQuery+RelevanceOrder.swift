import ClassTodayCore
import Foundation

extension SearchQuery {
    /// Whether `listings` (each a match of this query) are in relevance order, worked out here from first principles:
    /// the name tier before the description tier, each newest first, ties by id descending.
    func isInRelevanceOrder(_ listings: [ClassListing]) -> Bool {
        let keys = listings.map { listing in
            (tier: relevanceTier(ofListingNamed: listing.name).rawValue, createdAt: listing.createdAt, id: listing.id)
        }
        return zip(keys, keys.dropFirst()).allSatisfy { first, second in
            if first.tier != second.tier { return first.tier < second.tier }
            if first.createdAt != second.createdAt { return first.createdAt > second.createdAt }
            return first.id > second.id
        }
    }
}
