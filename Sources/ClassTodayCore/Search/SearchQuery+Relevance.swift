extension SearchQuery {
    /// How well a listing the query matches answers it, the first key of ``ClassSearch/Sort/relevance``: a listing
    /// whose name alone holds every term answers better than one that needs its description. Within a tier, newer
    /// listings come first (creation time, then id, descending), as on a marketplace's search page.
    public enum RelevanceTier: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// The name alone matches the query.
        case name = 0
        /// Name and description together match the query; the name alone does not.
        case description = 1

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The tier of a listing named `name` that the query matches (its name and description together).
    public func relevanceTier(ofListingNamed name: String) -> RelevanceTier {
        matches(name) ? .name : .description
    }
}
