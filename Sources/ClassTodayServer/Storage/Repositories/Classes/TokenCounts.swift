import ClassTodayCore
import Synchronization

/// How many listings hold each of some keyword tokens, as the keyword index counted them, kept in memory for a while
/// (``lifetime``): a search whose candidates are confirmed anyway leaves out of its index query the tokens far more
/// common than the rarest beside them (``SearchQuery/leavingOutCommonTokens(counts:)``), and a walk splits the cells
/// whose counts say they are crowded with a keyword's candidates without asking the index
/// (``ClassSearchIndex/estimatedCandidates(of:in:_:)``). A count only steers the statements, whose listings stay the
/// same: a stale or missing one may make a search slower, never wrong.
///
/// Where counting reads the index itself, tokens are counted apart from the search that lacked them (``countApart``):
/// SQLite's FTS5 reads a common token's doclist, 6 ms for 65,536 listings, and `영어회화` counts five tokens: its first
/// page by relevance took 14-21 ms, the next ones 2 ms. Such a page reads each doclist newest first and stops at the
/// page's end, so it took as long without counts as with them (bench p50 1.97-2.15 ms against 1.91-2.02).
public final class TokenCounts: Sendable {
    private struct Count {
        /// Nil for a token the index left out.
        let listings: Int?
        let counted: ContinuousClock.Instant
    }

    private let counts = Mutex<[String: Count]>([:])

    /// The tokens being counted apart now, which no other search starts counting again.
    private let counting = Mutex<Set<String>>([])

    /// Counts tokens on a read of its own, after the search that asked for them goes on without them; nil where
    /// counting costs a search little (PostgreSQL reads its statistics in one small statement), which then counts the
    /// tokens it lacks itself.
    private let countApart: (@Sendable ([String]) async throws -> [String: Int])?

    /// How long a count is used before the index is asked again: ten minutes, unless a test says otherwise.
    let lifetime: Duration

    /// The most tokens kept: past it, the half counted longest ago is forgotten.
    static let capacity = 20_000

    /// An empty cache keeping counts for `lifetime`, which counts tokens apart from searches with `countApart` (on a
    /// read of its own, from the index alone), and else within them.
    init(lifetime: Duration = .seconds(600), countApart: (@Sendable ([String]) async throws -> [String: Int])? = nil) {
        (self.lifetime, self.countApart) = (lifetime, countApart)
    }

    /// The counts of `tokens`: those kept, and for the others, those `count` reads from the index. A cache counting
    /// apart (``countApart``) instead starts counting the others, and gives those whose count is only old as they
    /// were: a later search finds them counted. The index
    /// may leave some out, which are then not counted, and not asked again for as long as a count is kept either: a
    /// walk asks about each of its cells, most of which PostgreSQL's statistics leave out. It may count more tokens
    /// than asked, which are kept too.
    func counts(of tokens: [String], count: ([String]) async throws -> [String: Int]) async throws -> [String: Int] {
        let now = ContinuousClock.now
        var known: [String: Int] = [:]
        var missing: [String] = []
        counts.withLock { counts in
            for token in tokens {
                guard let kept = counts[token] else {
                    missing.append(token)
                    continue
                }
                let fresh = now - kept.counted < lifetime
                if !fresh { missing.append(token) }
                // Counting apart, a search goes on with an old count while the token is counted again.
                if fresh || countApart != nil { known[token] = kept.listings }
            }
        }
        guard !missing.isEmpty else { return known }
        if let countApart {
            startCounting(missing, with: countApart)
            return known
        }
        let read = try await count(missing)
        keep(read, of: missing, countedAt: now)
        return known.merging(missing.compactMap { token in read[token].map { (token, $0) } }) { _, new in new }
    }

    /// Counts those of `tokens` no search is counting already, with `countApart`, in a task of its own. A count that
    /// fails keeps nothing: the next search to lack the tokens counts them again.
    private func startCounting(_ tokens: [String], with countApart: @escaping @Sendable ([String]) async throws -> [String: Int]) {
        let started = counting.withLock { counting in tokens.filter { counting.insert($0).inserted } }
        guard !started.isEmpty else { return }
        Task {
            defer { counting.withLock { $0.subtract(started) } }
            let countedAt = ContinuousClock.now
            guard let read = try? await countApart(started) else { return }
            keep(read, of: started, countedAt: countedAt)
        }
    }

    /// Keeps `read`, the counts of `tokens` (those it leaves out as such) and of any others it holds.
    private func keep(_ read: [String: Int], of tokens: [String], countedAt now: ContinuousClock.Instant) {
        counts.withLock { counts in
            for token in tokens { counts[token] = Count(listings: read[token], counted: now) }
            for (token, listings) in read { counts[token] = Count(listings: listings, counted: now) }
            if counts.count > Self.capacity {
                let oldestFirst = counts.sorted { $0.value.counted < $1.value.counted }
                counts = Dictionary(uniqueKeysWithValues: oldestFirst.suffix(Self.capacity / 2).map { ($0.key, $0.value) })
            }
        }
    }
}
