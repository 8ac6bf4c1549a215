import ClassTodayCore
import Synchronization

/// How many listings hold each of some keyword tokens, as the keyword index counted them, kept in memory for a while
/// (``lifetime``): a search whose candidates are confirmed anyway leaves out of its index query the tokens far more
/// common than the rarest beside them (``SearchQuery/leavingOutCommonTokens(counts:)``), and a walk splits the cells
/// whose counts say they are crowded with a keyword's candidates without asking the index
/// (``ClassSearchIndex/estimatedCandidates(of:in:_:)``). A count only steers the statements, whose listings stay the
/// same: a stale one may make a search slower, never wrong.
public final class TokenCounts: Sendable {
    private struct Count {
        /// Nil for a token the index left out.
        let listings: Int?
        let counted: ContinuousClock.Instant
    }

    private let counts = Mutex<[String: Count]>([:])

    /// How long a count is used before the index is asked again.
    static let lifetime = Duration.seconds(600)

    /// The most tokens kept: past it, the half counted longest ago is forgotten.
    static let capacity = 20_000

    /// An empty cache.
    init() {}

    /// The counts of `tokens`: those kept, and those `count` reads from the index for the others. It may leave some
    /// out, which are then not counted, and not asked again for as long as a count is kept either: a walk asks about
    /// each of its cells, most of which PostgreSQL's statistics leave out. It may count more tokens than asked, which
    /// are kept too.
    func counts(of tokens: [String], count: ([String]) async throws -> [String: Int]) async throws -> [String: Int] {
        let now = ContinuousClock.now
        var known: [String: Int] = [:]
        var missing: [String] = []
        counts.withLock { counts in
            for token in tokens {
                guard let kept = counts[token], now - kept.counted < Self.lifetime else {
                    missing.append(token)
                    continue
                }
                known[token] = kept.listings
            }
        }
        guard !missing.isEmpty else { return known }
        let read = try await count(missing)
        counts.withLock { counts in
            for token in missing { counts[token] = Count(listings: read[token], counted: now) }
            for (token, listings) in read { counts[token] = Count(listings: listings, counted: now) }
            if counts.count > Self.capacity {
                let oldestFirst = counts.sorted { $0.value.counted < $1.value.counted }
                counts = Dictionary(uniqueKeysWithValues: oldestFirst.suffix(Self.capacity / 2).map { ($0.key, $0.value) })
            }
        }
        return known.merging(missing.compactMap { token in read[token].map { (token, $0) } }) { _, new in new }
    }
}
