import ClassTodayCore
import NIOPosix
import Synchronization

/// Every listing that is neither deleted nor hidden, as a point held in memory in geohash order with the columns a
/// search filters on but its district (``ClassPoints/Point``), so that a nearest-first circle on SQLite reads its
/// walk's cells without a statement each (``SQLClassSearch``).
///
/// The points follow `classes` through the log `class_point_changes`, which triggers fill in whichever process writes
/// (migration 0018). ``points(_:)`` first brings them up to the caller's snapshot: it applies the changes after the
/// last one they hold, reading those listings as that snapshot has them, so a page is the one the SQL walk would read
/// in the same snapshot. Points never read, or further behind than the log keeps, are read again whole, but never on
/// an event loop (a request's handler, whose reads run there: ``SQLiteDatabase/read(_:)``): a million listings take
/// seconds, which would stall every connection of the loop. A search there walks with SQL and asks for the read
/// (``wholeReadsWanted``), which ``ClassPointWarmUp`` makes.
public final class ClassPointIndex: Sendable {
    private enum State: Sendable {
        /// Not read yet.
        case unread
        /// Being read whole by one search; the others walk with SQL meanwhile.
        case reading
        /// Ready, as of a change of the log.
        case ready(ClassPoints)
        /// A listing's id is not one the server makes (``Identifier/packed(_:)``): every search walks with SQL.
        case unusable
    }

    private let state = Mutex<State>(.unread)

    /// The listings pages read from the points have shown, as of the points' change: moved with the points, under the
    /// state's lock.
    let viewCache = ClassViewCache()

    /// The most listings one statement reads while the points are read whole.
    private static let readBatch = 50_000

    /// A whole read each, wanted by a search on an event loop that found the points unread or too far behind; at
    /// most one waits.
    let wholeReadsWanted: AsyncStream<Void>
    private let wantWholeRead: AsyncStream<Void>.Continuation

    /// An empty index, read on first use.
    init() {
        (wholeReadsWanted, wantWholeRead) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The points as of `db`'s snapshot (one read: ``SQLDatabase/read(_:)``), brought up to it; nil when they cannot
    /// answer this read (another read is reading them whole, a newer snapshot has already moved them on, or a
    /// listing's id is not one the server makes), and the caller walks with SQL.
    package func points(_ db: any SQLExecutor) async throws -> ClassPoints? {
        let latest: Int64 = try await db.row("SELECT COALESCE(MAX(seq), 0) AS latest FROM class_point_changes")?["latest"] ?? 0
        let held: ClassPoints? = state.withLock { state in
            guard case .ready(let points) = state else { return nil }
            return points
        }
        guard let held else {
            guard mayReadWholeHere() else { return nil }
            let claimed = state.withLock { state in
                guard case .unread = state else { return false }
                state = .reading
                return true
            }
            return claimed ? try await readWhole(as: latest, db) : nil
        }
        if held.change == latest { return held }
        if held.change > latest { return nil }
        if let (caughtUp, changed) = try await Self.catchUp(held, to: latest, db) {
            state.withLock { state in
                guard case .ready(let current) = state, current.change < caughtUp.change else { return }
                state = .ready(caughtUp)
                // The cache is as of `current`, at or after `held`: what changed since `held` covers what changed since.
                viewCache.advance(to: caughtUp.change, dropping: changed)
            }
            return caughtUp
        }
        // Further behind than the log keeps, or a listing whose id cannot be held: read again whole, once.
        guard mayReadWholeHere() else { return nil }
        let claimed = state.withLock { state in
            guard case .ready(let current) = state, current.change == held.change else { return false }
            state = .reading
            viewCache.reset(to: nil)
            return true
        }
        return claimed ? try await readWhole(as: latest, db) : nil
    }

    /// Whether this caller may read the points whole: not on an event loop, where it asks ``wholeReadsWanted`` for the
    /// read instead and answers false.
    private func mayReadWholeHere() -> Bool {
        guard MultiThreadedEventLoopGroup.currentEventLoop != nil else { return true }
        wantWholeRead.yield()
        return false
    }

    /// Reads the points whole (``read(as:_:)``) for a caller that has set the state to reading, and keeps them.
    private func readWhole(as latest: Int64, _ db: any SQLExecutor) async throws -> ClassPoints? {
        do {
            let read = try await Self.read(as: latest, db)
            state.withLock { state in
                state = read.map(State.ready) ?? .unusable
                viewCache.reset(to: read?.change)
            }
            return read
        } catch {
            state.withLock { $0 = .unread }
            throw error
        }
    }

    /// The columns of a point, over `classes c`.
    private static let columns = """
        c.rowid AS row_key, c.id, c.lat, c.lon, c.status, c.type, c.writer_id, c.price, c.subjects_mask, c.targets_mask, c.days_mask
        """
    /// The listings the index holds, over `classes c`.
    private static let held = "c.deleted_at IS NULL AND c.hidden_at IS NULL AND c.lat IS NOT NULL"

    /// Every held listing, read in rowid order in batches, as of the log's change `latest`; nil when a listing's id
    /// cannot be held.
    private static func read(as latest: Int64, _ db: any SQLExecutor) async throws -> ClassPoints? {
        var points = ClassPoints.Builder()
        var after = Int64.min
        while true {
            let rows = try await db.rows("""
                SELECT \(raw: columns) FROM classes c
                WHERE c.rowid > \(after) AND \(raw: held) ORDER BY c.rowid LIMIT \(readBatch)
                """)
            for row in rows {
                guard try points.add(row) else { return nil }
            }
            guard rows.count == readBatch, let last = rows.last else { break }
            after = try last["row_key"]
        }
        return points.build(as: latest)
    }

    /// `points` with the log's changes after theirs up to `latest` applied, each changed listing read as `db`'s
    /// snapshot has it, and the ids of the listings changed; nil when the log no longer holds every one of those changes,
    /// or a listing's id cannot be held.
    private static func catchUp(
        _ points: ClassPoints, to latest: Int64, _ db: any SQLExecutor
    ) async throws -> (points: ClassPoints, changed: [String])? {
        let changes = try await db.rows("""
            SELECT seq, class_id FROM class_point_changes WHERE seq > \(points.change) AND seq <= \(latest) ORDER BY seq
            """)
        guard let first = changes.first, try first["seq"] == points.change + 1, changes.count == latest - points.change
        else { return nil }
        var updated = points
        let changed: [String] = try changes.map { try $0["class_id"] }
        for id in changed {
            updated.remove(id: id)
        }
        let rows = try await db.rows("SELECT \(raw: columns) FROM classes c WHERE c.id IN \(db.dialect.list(changed)) AND \(raw: held)")
        for row in rows {
            guard try updated.insert(row) else { return nil }
        }
        updated.change = latest
        return (updated, changed)
    }
}

/// The points of a ``ClassPointIndex`` as of one change of its log: a value, which a search reads while the index
/// moves on. They are kept in cell order (``Geohash/storageKey(of:)``, then id) and, to find a listing's point from
/// its id or its rowid alone (a keyword index's hit), in id and rowid order too, each in ``SortedChunks``.
package struct ClassPoints: Sendable {
    /// A held listing: what a circle reads and filters on, all but its district.
    struct Point: ChunkSorted {
        // The id first, the narrowest last: a point takes 64 bytes, a multiple of the id's 16-byte alignment.
        /// The listing's id, packed (``Identifier/packed(_:)``).
        let id: UInt128
        /// ``Geohash/storageKey(of:)`` of the position.
        let key: UInt64
        let lat: Double
        let lon: Double
        let price: Int64?
        /// The writer's number (``writerNumber(of:)``).
        let writer: UInt32
        let status: ClassStatus
        let type: ClassType
        /// The subjects', targets' and days' bit masks (``BitMask``), as the columns hold them.
        let subjects: UInt16
        let targets: UInt16
        let days: UInt16

        var order: CellOrder { CellOrder(key: key, id: id) }
    }

    /// The points' order: by cell, then id.
    struct CellOrder: Comparable, Sendable {
        let key: UInt64
        let id: UInt128

        static func < (a: CellOrder, b: CellOrder) -> Bool {
            a.key != b.key ? a.key < b.key : a.id < b.id
        }
    }

    /// Where a listing's point is, in id order: its cell key, and its rowid.
    private struct Placed: ChunkSorted {
        let id: UInt128
        let key: UInt64
        let row: Int64

        var order: UInt128 { id }
    }

    /// A listing's point in rowid order: a copy, so that a keyword index's hits find their points with one search.
    private struct RowPoint: ChunkSorted {
        let point: Point
        let row: Int64

        var order: Int64 { row }
    }

    /// Collects points in any order.
    struct Builder {
        private var points: [Point] = []
        private var placed: [Placed] = []
        private var byRow: [RowPoint] = []
        private var writers = WriterNumbers()

        /// Adds the listing of `row` (``ClassPointIndex``'s columns); false when its id cannot be held.
        mutating func add(_ row: SQLRow) throws -> Bool {
            guard let point = try Point(row: row, writers: &writers) else { return false }
            let rowid: Int64 = try row["row_key"]
            points.append(point)
            placed.append(Placed(id: point.id, key: point.key, row: rowid))
            byRow.append(RowPoint(point: point, row: rowid))
            return true
        }

        /// The points, as of the log's change `change`.
        consuming func build(as change: Int64) -> ClassPoints {
            points.sort { $0.order < $1.order }
            placed.sort { $0.id < $1.id }
            byRow.sort { $0.row < $1.row }
            return ClassPoints(byCell: SortedChunks(sorted: points), byId: SortedChunks(sorted: placed),
                               byRow: SortedChunks(sorted: byRow), writers: writers, change: change)
        }
    }

    private var byCell: SortedChunks<Point>
    private var byId: SortedChunks<Placed>
    private var byRow: SortedChunks<RowPoint>
    private var writers: WriterNumbers
    /// The change of the log `class_point_changes` the points are as of.
    fileprivate(set) var change: Int64

    private init(
        byCell: SortedChunks<Point>, byId: SortedChunks<Placed>, byRow: SortedChunks<RowPoint>, writers: WriterNumbers, change: Int64
    ) {
        (self.byCell, self.byId, self.byRow, self.writers, self.change) = (byCell, byId, byRow, writers, change)
    }

    /// How many points there are.
    package var count: Int { byId.count }

    /// The bytes the points in both orders and their ids take (not counting the chunks' spare capacity or the
    /// writers' numbers).
    package var heldBytes: Int {
        count * (MemoryLayout<Point>.stride + MemoryLayout<Placed>.stride + MemoryLayout<RowPoint>.stride)
    }

    /// The point of the listing whose rowid is `row`, if it is held.
    func point(row: Int64) -> Point? {
        byRow.element(at: row)?.point
    }

    /// The rowid of the listing whose packed id is `id`, if it is held.
    func row(of id: UInt128) -> Int64? {
        byId.element(at: id)?.row
    }

    /// The number the points give the user `id`'s listings, or nil when they hold none of them.
    func writerNumber(of id: String) -> UInt32? {
        writers.numbers[id]
    }

    /// How many points lie in `cell`.
    func count(in cell: Geohash) -> Int {
        byCell.count(in: Self.orders(of: cell))
    }

    /// Calls `body` with each point in `cell`.
    func forEach(in cell: Geohash, _ body: (Point) -> Void) {
        byCell.forEach(in: Self.orders(of: cell), body)
    }

    /// The orders of the points in `cell`.
    private static func orders(of cell: Geohash) -> Range<CellOrder> {
        let keys = cell.storageKeys
        return CellOrder(key: keys.lowerBound, id: 0)..<CellOrder(key: keys.upperBound, id: 0)
    }

    /// Adds the listing of `row` (``ClassPointIndex``'s columns), in place of any point it had; false when its id
    /// cannot be held.
    fileprivate mutating func insert(_ row: SQLRow) throws -> Bool {
        guard let point = try Point(row: row, writers: &writers) else { return false }
        remove(packed: point.id)
        let placed = Placed(id: point.id, key: point.key, row: try row["row_key"])
        byCell.insert(point)
        byId.insert(placed)
        byRow.insert(RowPoint(point: point, row: placed.row))
        return true
    }

    /// Removes the point of the listing `id`, if any.
    fileprivate mutating func remove(id: String) {
        if let packed = Identifier.packed(id) { remove(packed: packed) }
    }

    private mutating func remove(packed id: UInt128) {
        guard let placed = byId.remove(at: id) else { return }
        byCell.remove(at: CellOrder(key: placed.key, id: id))
        byRow.remove(at: placed.row)
    }

    /// The writers of the points, numbered in order of appearance.
    fileprivate struct WriterNumbers {
        private(set) var numbers: [String: UInt32] = [:]

        /// The number of the writer `id`, given now if new.
        mutating func number(of id: String) -> UInt32 {
            if let number = numbers[id] { return number }
            let number = UInt32(numbers.count)
            numbers[id] = number
            return number
        }
    }
}

/// What a search asks of a listing's point besides its area and keyword: ``ClassSearch``'s filters but the district,
/// which the points do not hold, with the masks the SQL walk compares (``BitMask``) computed once.
struct PointFilters {
    let search: ClassSearch
    let subjects: Int64?
    let targets: Int64?
    let days: Int64?

    /// The filters of `search` (its district left to the caller).
    init(_ search: ClassSearch) {
        self.search = search
        (subjects, targets, days) = (search.subjects.map(BitMask.of), search.targets.map(BitMask.of), search.days.map(BitMask.of))
    }
}

extension ClassPoints.Point {
    /// Whether `filters` keep this listing and its writer is not among the `hidden` writers' numbers: the conditions
    /// the SQL walk checks on the same columns.
    func passes(_ filters: PointFilters, hidden: Set<UInt32>) -> Bool {
        if let status = filters.search.status, self.status != status { return false }
        if let type = filters.search.type, self.type != type { return false }
        if let subjects = filters.subjects, Int64(self.subjects) & subjects == 0 { return false }
        if let targets = filters.targets, Int64(self.targets) & targets == 0 { return false }
        if let days = filters.days, Int64(self.days) & days == 0 { return false }
        if !filters.search.admitsPrice(price.map(Int.init)) { return false }
        if let box = filters.search.box, !box.contains(GeoPoint(lat: lat, lon: lon)) { return false }
        return !hidden.contains(writer)
    }

    /// The point of a listing's row (``ClassPointIndex``'s columns), numbering its writer in `writers`; nil when its id
    /// cannot be held or the row holds what the schema does not allow (a mask wider than 16 bits).
    fileprivate init?(row: SQLRow, writers: inout ClassPoints.WriterNumbers) throws {
        guard let id = Identifier.packed(try row["id"]), let status = ClassStatus(rawValue: try row["status"]),
              let type = ClassType(rawValue: try row["type"]), let subjects = UInt16(exactly: try row["subjects_mask"] as Int64),
              let targets = UInt16(exactly: try row["targets_mask"] as Int64), let days = UInt16(exactly: try row["days_mask"] as Int64)
        else { return nil }
        let location = GeoPoint(lat: try row["lat"], lon: try row["lon"])
        self.init(id: id, key: Geohash.storageKey(of: location), lat: location.lat, lon: location.lon, price: try row["price"],
                  writer: writers.number(of: try row["writer_id"]), status: status, type: type, subjects: subjects, targets: targets,
                  days: days)
    }
}
