import ClassTodayCore
import Logging
import Synchronization

/// How many listings hold each of some keyword tokens, as the keyword index counted them, kept in memory for a while
/// (``lifetime``): a search whose candidates are confirmed anyway leaves out of its index query the tokens far more
/// common than the rarest beside them (``SearchQuery/leavingOutCommonTokens(counts:)``), and a walk splits the cells
/// whose counts say they are crowded with a keyword's candidates without asking the index
/// (``ClassSearchIndex/estimatedCandidates(of:in:_:)``). A count only steers the statements, whose listings stay the
/// same: a stale or missing one may make a search slower, never wrong.
///
/// So no search waits for a count: one that lacks some goes on with those kept, however old, and the others are
/// counted apart, in a task of their own, for the searches after it. Counting costs more than it saves a page: SQLite's
/// FTS5 reads a common token's doclist (6 ms for 65,536 listings), and `영어회화` counts five tokens, so its first page
/// by relevance took 14-21 ms where the next ones took 2; PostgreSQL's statistics took 4 ms a statement warm and 13 ms
/// on a connection's first. A page by relevance took as long without counts as with them (SQLite bench p50 1.97-2.15 ms
/// against 1.91-2.02).
public final class TokenCounts: Sendable {
    private struct Count {
        /// Nil for a token the index left out.
        let listings: Int?
        let counted: ContinuousClock.Instant
    }

    private let counts = Mutex<[String: Count]>([:])

    /// The tokens being counted now, which no other search starts counting again.
    private let counting = Mutex<Set<String>>([])

    /// Counts tokens in the index, on statements of its own (never a search's read, which may end before the count).
    private let count: @Sendable ([String]) async throws -> [String: Int]

    /// How long a count is used before the index is asked again: ten minutes, unless a test says otherwise.
    let lifetime: Duration

    /// Where a count that failed is told.
    private let logger: Logger

    /// The most tokens kept: past it, the half counted longest ago is forgotten.
    static let capacity = 20_000

    /// An empty cache keeping counts for `lifetime`, which `count` reads. The index may leave some tokens out of its
    /// answer, which are then not counted again for as long as a count is kept either: a walk asks about each of its
    /// cells, most of which PostgreSQL's statistics leave out. It may count more tokens than asked, which are kept too.
    init(lifetime: Duration = .seconds(600), logger: Logger, count: @escaping @Sendable ([String]) async throws -> [String: Int]) {
        (self.lifetime, self.logger, self.count) = (lifetime, logger, count)
    }

    /// An empty cache counting tokens with `index` on `database`, up to the index's
    /// ``ClassSearchIndex/countedListings``, and telling `logger` of a count that failed.
    convenience init(index: any ClassSearchIndex, database: any SQLExecutor, logger: Logger) {
        self.init(logger: logger) { tokens in try await index.counts(of: tokens, upTo: index.countedListings, database) }
    }

    /// The counts kept of `tokens`, however old; those not kept, or kept for longer than ``lifetime``, are counted
    /// apart for the searches after this one.
    func counts(of tokens: [String]) -> [String: Int] {
        let now = ContinuousClock.now
        let missing = counts.withLock { counts in tokens.filter { token in counts[token].map { now - $0.counted >= lifetime } ?? true } }
        if !missing.isEmpty { startCounting(missing) }
        return kept(tokens)
    }

    /// The counts kept of `tokens`, however old, counting none: for tokens the index counts only beside others
    /// (PostgreSQL's cells, with every listing).
    func kept(_ tokens: [String]) -> [String: Int] {
        counts.withLock { counts in
            tokens.reduce(into: [String: Int]()) { known, token in known[token] = counts[token]?.listings }
        }
    }

    /// Counts those of `tokens` no search is counting already, in a task of its own. A count that fails keeps
    /// nothing, and is logged: the next search to lack the tokens counts them again.
    private func startCounting(_ tokens: [String]) {
        let started = counting.withLock { counting in tokens.filter { counting.insert($0).inserted } }
        guard !started.isEmpty else { return }
        Task {
            defer { counting.withLock { $0.subtract(started) } }
            let countedAt = ContinuousClock.now
            do {
                keep(try await count(started), of: started, countedAt: countedAt)
            } catch {
                logger.warning("counting keyword tokens failed; searches go on without their counts",
                               metadata: ["tokens": "\(started.count)", "error": "\(String(reflecting: error))"])
            }
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
