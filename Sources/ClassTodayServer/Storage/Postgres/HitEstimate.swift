import ClassTodayCore

/// How many listings a relevance read on PostgreSQL may find, at most, from the planner's statistics: an upper bound
/// rather than the planner's own estimate of the whole condition, which multiplies the frequencies of the keyword's
/// tokens as if they were independent. They are not: the bigrams of one word, or the initial-consonant tokens of
/// `ㅇㅇㅎㅎ`, occur together, and the planner estimated 2,087 listings for 42,651 (sorting them took 700 ms).
/// Each token's own frequency is well estimated (`most_common_elems`), so the bound is the least frequent token's;
/// a district, independent of the words, scales it by its share of the listings.
struct HitEstimate {
    /// The listings whose vector holds the keyword's tokens (and the district's), at most: what sorting reads.
    let candidates: Double
    /// The listings the read is after, about: the candidates but for those whose name holds the keyword when the name
    /// tier has them already. A window of the newest listings holds one in `listings / hits` of them.
    let hits: Double
    /// The listings in all.
    let listings: Double
    /// The share of ``hits`` the listings may be as few as, as far as the statistics tell: the keyword's
    /// ``overlappingBound(_:tokenHits:)`` over its ``bound(_:tokenHits:)``, below 1 when its alternatives may overlap.
    var distinctShare = 1.0
    /// Whether the planner had no statistics for the keyword: its bound is at the planner's floor, the estimate of a
    /// token rarer than any it keeps (0.5 % of the listings at most), or of a prefix matching none it keeps.
    var isFloor = false

    /// Sorting a hit costs about this many times a listing of a window (``window(limit:)``): measured on 1,000,000
    /// listings, sorting the 16,893 hits of `피아노` read their rows at random (58 ms, about 3.4 µs a hit warm, 13 µs
    /// cold), while the hits among the 8,000 newest listings took one GIN scan (1.6 ms, 0.2 µs a listing).
    static let sortCostPerWindowListing = 17.0

    /// How many times the listings a window should need to hold `limit` hits, were the hits spread evenly, it spans:
    /// the hits are an upper bound, but filters and clusters in time leave fewer.
    static let windowMargin = 2.0

    /// Whether sorting the candidates reads less than a window holding `limit` hits: the window spans about
    /// `margin × limit × listings / hits` listings, so sorting wins while
    /// `candidates × hits × cost ≤ margin × limit × listings`: up to about 2,700 hits for 64 of them in 1,000,000
    /// listings, and always when there are none. A keyword at the planner's floor (``isFloor``) is sorted too: it may
    /// be held by no listing at all (a Latin prefix), and every window would be read in vain.
    func favoursSorting(limit: Int) -> Bool {
        isFloor || candidates * hits * Self.sortCostPerWindowListing <= Self.windowMargin * Double(limit) * listings
    }

    /// How a relevance read finds its page.
    enum Strategy: Equatable {
        /// Sort all the hits.
        case sorting
        /// Walk listings newest first.
        case walking
        /// Read the hits among this many newest listings first.
        case window(Int)
    }

    /// Sorting when it wins (``favoursSorting(limit:)``); else walking when a page's hits are among the
    /// ``shortestWindow`` newest listings, which a walk passes faster than a GIN scan reads a common token's posting
    /// tree; else a window.
    func strategy(limit: Int) -> Strategy {
        if favoursSorting(limit: limit) { return .sorting }
        let window = window(limit: limit)
        return window <= Self.shortestWindow ? .walking : .window(window)
    }

    /// The widest span a walk is chosen for: a walk passes a listing in about 2 µs, a window's GIN scan reads a very
    /// common token's posting tree whatever its span (10–20 ms for a 1-syllable word on 1,000,000 listings).
    static let shortestWindow = 2_000

    /// The most listings a walk passes before the hits are sorted after all (about 20 ms).
    static let longestWalk = 8_000

    /// The newest listings a first window spans, to hold `limit` hits: ``windowMargin`` times the listings that hold
    /// `limit` hits on average, `limit` at least. The hits are taken at their fewest (``distinctShare``): the
    /// alternatives of a typo-tolerant keyword are mostly held by the same listings, those holding the word itself, and
    /// a window sized on their sum held too few candidates to fill a page and was read again four times as wide.
    func window(limit: Int) -> Int {
        let hits = hits * distinctShare
        let spread = hits > 0 ? Self.windowMargin * Double(limit) * listings / hits : listings
        return Int(min(max(spread, Double(limit)), Double(Self.widestWindow)))
    }

    /// The widest window read before the hits are sorted instead (about 15 ms of GIN scan): a window widens
    /// fourfold while it holds fewer hits than its page, so the cost of a wrong estimate stays bounded.
    static let widestWindow = 65_536

    /// The bound on the listings holding `keyword`'s tokens, from each token requirement's estimate (`tokenHits`):
    /// for each of the keyword's conditions, the sum over its alternatives of their least frequent token; the least
    /// of those.
    static func bound(_ keyword: SearchQuery, tokenHits: (SearchQuery.TokenRequirement) -> Double) -> Double {
        bound(of: alternativeBounds(keyword, tokenHits: tokenHits))
    }

    /// The bound were each condition's alternatives held by the same listings: its most frequent alternative's least
    /// frequent token; the least of those over the conditions. The listings holding `keyword`'s tokens are about as
    /// many at least (exactly so when each condition has one alternative).
    static func overlappingBound(_ keyword: SearchQuery, tokenHits: (SearchQuery.TokenRequirement) -> Double) -> Double {
        overlappingBound(of: alternativeBounds(keyword, tokenHits: tokenHits))
    }

    /// For each of `keyword`'s conditions, the estimate of each alternative: its least frequent token's.
    private static func alternativeBounds(_ keyword: SearchQuery, tokenHits: (SearchQuery.TokenRequirement) -> Double) -> [[Double]] {
        keyword.conditions.map { condition in condition.alternatives.map { $0.map(tokenHits).min() ?? 0 } }
    }

    /// ``bound(_:tokenHits:)`` from the conditions' ``alternativeBounds(_:tokenHits:)``.
    private static func bound(of alternatives: [[Double]]) -> Double {
        alternatives.map { $0.reduce(0, +) }.min() ?? 0
    }

    /// ``overlappingBound(_:tokenHits:)`` from the conditions' ``alternativeBounds(_:tokenHits:)``.
    private static func overlappingBound(of alternatives: [[Double]]) -> Double {
        alternatives.map { $0.max() ?? 0 }.min() ?? 0
    }

    /// Reads the planner's estimates in one `EXPLAIN` of a `UNION ALL`: for the column the read selects on
    /// (`name_search` with `nameOnly`, else `search`), and again for `name_search` when the read leaves the name's
    /// hits out (`excludingNames`), a branch per token of `keyword` and one per floor (``floorOperands``); then the
    /// district's listings if any, then all listings.
    static func read(
        _ keyword: SearchQuery, nameOnly: Bool, excludingNames: Bool, district: String?, _ db: any SQLExecutor
    ) async throws -> HitEstimate {
        let tokens = Array(Set(keyword.tokenRequirements)).sorted { $0.tsQuery < $1.tsQuery }
        let columns = (nameOnly ? ["name_search"] : ["search"]) + (excludingNames ? ["name_search"] : [])
        let operands = tokens.map(\.tsQuery) + floorOperands
        var branches: [SQLStatement] = columns.flatMap { column in
            operands.map { "SELECT 1 FROM classes WHERE \(raw: column) @@ \($0)::tsquery" as SQLStatement }
        }
        if let district { branches.append("SELECT 1 FROM classes WHERE keyword_location = \(district)") }
        branches.append("SELECT 1 FROM classes")
        var statement: SQLStatement = "EXPLAIN "
        for (index, branch) in branches.enumerated() {
            statement.append(index == 0 ? branch : " UNION ALL \(branch)")
        }
        let plan: [String] = try await db.rows(statement).map { try $0["QUERY PLAN"] }
        let rows = branchRows(plan)
        guard rows.count == branches.count, let listings = rows.last else {
            // Unexpected plan shape: claim no hits, so the read sorts them, which is exact and costs as many as there
            // are, where a walk or window chosen on a wrong estimate could be read in vain before sorting anyway.
            return HitEstimate(candidates: 0, hits: 0, listings: 1)
        }
        let share = district == nil || listings == 0 ? 1 : min(rows[columns.count * operands.count] / listings, 1)
        let perColumn = columns.indices.map { column in
            let estimates = Array(rows[(column * operands.count)..<((column + 1) * operands.count)])
            let byToken = Dictionary(uniqueKeysWithValues: zip(tokens, estimates))
            let alternatives = alternativeBounds(keyword, tokenHits: { byToken[$0] ?? 0 })
            let bound = bound(of: alternatives)
            let distinctShare = bound > 0 ? overlappingBound(of: alternatives) / bound : 1
            return (hits: bound * share, distinctShare: distinctShare, isFloor: bound <= estimates.suffix(floorOperands.count).max()! * 1.01)
        }
        let excluded = excludingNames ? perColumn[1].hits : 0
        return HitEstimate(candidates: perColumn[0].hits, hits: max(perColumn[0].hits - excluded, 0), listings: listings,
                           distinctShare: perColumn[0].distinctShare, isFloor: perColumn[0].isFloor)
    }

    /// Operands no listing holds, whose estimates are the planner's floors: a lexeme (`@`, which cell and district
    /// lexemes only start) and a prefix (`~`, which no lexeme starts); the planner estimates prefixes apart.
    private static let floorOperands = ["'@'", "'~':*"]

    /// The estimated rows of each branch of a `UNION ALL` plan, in order: the children of its `Append` (or
    /// `Parallel Append`) node, the lines whose `->` stands two columns right of where the node's name starts.
    static func branchRows(_ plan: [String]) -> [Double] {
        guard let append = plan.firstIndex(where: { $0.contains("Append  (") }),
              let name = plan[append].firstRange(of: /(Parallel )?Append  \(/)
        else { return [] }
        let childPrefix = String(repeating: " ", count: plan[append].distance(from: plan[append].startIndex, to: name.lowerBound) + 2) + "->  "
        return plan[(append + 1)...].filter { $0.hasPrefix(childPrefix) }.compactMap { line in
            line.firstMatch(of: /rows=(\d+)/).flatMap { Double($0.1) }
        }
    }
}
