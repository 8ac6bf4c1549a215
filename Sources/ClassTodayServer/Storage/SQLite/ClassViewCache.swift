import ClassTodayCore
import Synchronization

/// The listings pages read from the listings' points (``ClassPoints``) have shown, with their writers, kept in memory
/// as of one change of the log `class_point_changes`, so that such a page reads with a statement only the listings it
/// has not shown before (and, for a viewer signed in, which of them the viewer saved).
///
/// The log names every change to what a listing shows: its columns and its writer's nickname, picture and rating
/// (migration 0029). The cache moves with its ``ClassPointIndex``'s points, under the index's lock: ``advance(to:dropping:)``
/// drops the listings a catch-up read again, ``reset(to:)`` drops them all. A page uses and fills the cache only when
/// its snapshot is the cache's change, so a listing read in an older snapshot is never kept once a newer one changed it.
/// Which listings a page holds (moderation, blocks, filters) is the walk's decision: the cache only saves reading them.
final class ClassViewCache: Sendable {
    /// A listing and its writer, as of the cache's change: a reference, which a page takes from the cache with one
    /// retain rather than one for each of the listing's strings.
    private final class Entry: Sendable {
        let listing: ClassListing
        let writer: WriterSummary

        init(listing: ClassListing, writer: WriterSummary) {
            (self.listing, self.writer) = (listing, writer)
        }
    }

    private struct State: Sendable {
        /// The log's change the entries are as of; none before the points are first read.
        var change: Int64?
        /// By packed id (``Identifier/packed(_:)``).
        var entries: [UInt128: Entry] = [:]
    }

    private let state = Mutex(State())

    /// The most listings kept; a full cache starts again empty.
    let capacity: Int

    /// An empty cache, as of no change, keeping at most `capacity` listings: 50,000 take about 50 MB with long
    /// descriptions.
    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    /// How many listings are kept.
    var count: Int { state.withLock { $0.entries.count } }

    /// Moves the cache to the log's change `change`, dropping the listings `changed` (ids as the log names them): those
    /// the log names after the cache's change, and possibly more. Called by the index as its points move on.
    func advance(to change: Int64, dropping changed: [String]) {
        state.withLock { state in
            for id in changed {
                if let packed = Identifier.packed(id) { state.entries[packed] = nil }
            }
            state.change = change
        }
    }

    /// Empties the cache, as of the log's change `change` (nil: none, while the points are read whole).
    func reset(to change: Int64?) {
        state.withLock { $0 = State(change: change) }
    }

    /// The views of the listings `ids` (packed), in no particular order, as `viewerId` sees them, for a read whose
    /// snapshot is the log's change `change`: those kept as of `change`, and the others read by the rowid `row` gives
    /// (``ClassViewQuery/views(rows:viewerId:_:)``) and kept. A listing without a rowid, or that the statement does not
    /// find, is left out.
    func views(
        of ids: [UInt128], row: (UInt128) -> Int64?, asOf change: Int64, viewerId: String?, _ db: any SQLExecutor
    ) async throws -> [ClassView] {
        let (kept, missing) = state.withLock { state -> ([Entry], [UInt128]) in
            guard state.change == change else { return ([], ids) }
            var (kept, missing): ([Entry], [UInt128]) = ([], [])
            for id in ids {
                if let entry = state.entries[id] { kept.append(entry) } else { missing.append(id) }
            }
            return (kept, missing)
        }
        let read = try await ClassViewQuery.views(rows: missing.compactMap(row), viewerId: viewerId, db)
        keep(read, asOf: change)
        let saved = try await ClassViewQuery.saved(kept.map(\.listing.id), by: viewerId, db)
        return read + kept.map { ClassView(listing: $0.listing, writer: $0.writer, isFavorite: saved.contains($0.listing.id)) }
    }

    /// Keeps `views`, read in the snapshot of the log's change `change`, if the cache is still as of it.
    private func keep(_ views: [ClassView], asOf change: Int64) {
        guard !views.isEmpty else { return }
        state.withLock { state in
            guard state.change == change else { return }
            if state.entries.count + views.count > capacity { state.entries = [:] }
            for view in views {
                if let packed = Identifier.packed(view.listing.id) { state.entries[packed] = Entry(listing: view.listing, writer: view.writer) }
            }
        }
    }
}
