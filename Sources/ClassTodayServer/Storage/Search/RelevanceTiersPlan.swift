import ClassTodayCore
import Foundation

/// ``SearchPlanName/relevanceTiers``: a keyword's page by relevance (``SearchQuery/RelevanceTier``): the name tier's
/// hits, then the description tier's, each newest first from the keyword index
/// (``ClassSearchIndex/newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``), until the page is
/// full. Chosen for every search by relevance with a keyword; fast because no hit is scored, however common the word:
/// a page reads about its own hits in the index's recency order.
struct RelevanceTiersPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let keyword = search.keyword else { return nil }
        let (keys, resumeAfter) = try await byRelevance(db, keyword: keyword)
        return try await views(for: keys, resumingAfter: resumeAfter, db)
    }

    /// The keys of a relevance page: the name tier's hits, then the description tier's, each newest first, after the
    /// cursor, read in batches until the page is full; and where the walk stood when it ended the page early, past
    /// ``confirming`` candidates read to confirm, with fewer keys than the page wants. Batches of candidates to confirm
    /// double while they find too few, up to ``largestVerificationBatch``.
    private func byRelevance(_ db: any SQLExecutor, keyword: SearchQuery) async throws -> (keys: [SearchKey], resumeAfter: SearchKey?) {
        guard let area = areaConditions(ranges: coveringRanges) else { return ([], nil) }
        let wanted = page.limit + 1
        let start = relevanceStart
        var keys: [SearchKey] = []
        var (confirmed, batch) = (0, SQLClassSearch.verificationBatch)
        for tier in SearchQuery.RelevanceTier.allCases where tier >= start.tier {
            var position = tier == start.tier ? start.position : nil
            // The description tier leaves out the name tier's hits in Swift, so it reads in larger batches.
            let filtersHere = tier == .description || keyword.needsVerification || !blockedWriters.isEmpty
            while keys.count < wanted {
                let missing = wanted - keys.count
                let hits = try await index.newest(keyword, nameOnly: tier == .name, district: search.keywordLocation,
                                                  columns: relevanceColumns(area, tier: tier, keyword: keyword), conditions: filterConditions + area.all,
                                                  after: position, limit: filtersHere ? max(missing, batch) : missing, enough: missing, db)
                let fetched = try hits.rows.map { try SearchKey(row: $0, sort: .relevance, tier: tier) }
                trace?.examined(fetched.count)
                let found = keys.count
                keys += fetched.filter { key in
                    !(key.writerId.map(blockedWriters.contains) ?? false) && Self.belongs(key, to: tier, keyword: keyword)
                }
                guard hits.mayContinue, let last = fetched.last else { break }
                position = RecencyPosition(createdAt: last.createdAt, id: last.id)
                guard keyword.needsVerification else { continue }
                confirmed += fetched.count
                if keys.count < wanted, confirmed >= confirming { return (keys, last) }
                if 4 * (keys.count - found) < fetched.count { batch = min(2 * batch, Self.largestVerificationBatch) }
            }
            if keys.count >= wanted { break }
        }
        return (Array(keys.prefix(wanted)), nil)
    }

    /// The most candidates a relevance walk reads in one statement to confirm them.
    private static let largestVerificationBatch = 2_048

    /// Whether a candidate the index found for `tier` is a match of that tier: the name tier's candidates (their
    /// name's tokens hold the keyword's) must match by name alone; the description tier's must match, and not by
    /// name alone when the name tier found them.
    private static func belongs(_ key: SearchKey, to tier: SearchQuery.RelevanceTier, keyword: SearchQuery) -> Bool {
        switch tier {
        case .name:
            return !keyword.needsVerification || keyword.matches(key.name ?? "")
        case .description:
            if keyword.needsVerification, !keyword.matches(key.text ?? "") { return false }
            return !(key.nameHit && keyword.relevanceTier(ofListingNamed: key.name ?? "") == .name)
        }
    }

    /// The columns a relevance read selects for `tier`: the name when the tier needs it, the description when the
    /// keyword must be confirmed on the whole text.
    func relevanceColumns(_ area: AreaConditions, tier: SearchQuery.RelevanceTier, keyword: SearchQuery) -> SQLStatement {
        var columns = keyColumns
        if let distance = area.distance { columns.append(", \(distance) AS distance") }
        if tier == .description || keyword.needsVerification { columns.append(", c.name") }
        if tier == .description, keyword.needsVerification { columns.append(", c.description") }
        return columns
    }

    /// Where a relevance page continues: the tier of the cursor's last result and its place in it, or the start.
    private var relevanceStart: (tier: SearchQuery.RelevanceTier, position: RecencyPosition?) {
        guard let values = page.after?.values, values.count == 3, let rawTier = values[0].int,
              let tier = SearchQuery.RelevanceTier(rawValue: Int(rawTier)), let createdAt = values[1].int, let id = values[2].string
        else { return (.name, nil) }
        return (tier, RecencyPosition(createdAt: createdAt, id: id))
    }
}
