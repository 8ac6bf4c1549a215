/// Collects the first `wanted` items of a nearest-first search while a ``NearestCellWalk`` hands out cells.
///
/// Items read from cells wait as *pending* until the walk's next cell cannot hold anything nearer: every item
/// nearer than that cell's minimum distance is then *settled*, in order. The page is complete once `wanted`
/// items are settled; whatever is still pending when the walk ends is settled last.
///
/// ```swift
/// var page = NearestFirstPage<Key, String>(wanted: 21, distance: { $0.distance }, id: { $0.id })
/// while let entry = walk.popNearest(), !page.settle(before: entry.minimumDistance) {
///     page.add(try read(entry.cell, limit: page.stillWanted))
/// }
/// let keys = page.finish()
/// ```
///
/// `ID` breaks ties between equal distances; the in-memory walk orders by its packed 128-bit ids, which sort as their
/// text does, so that a comparison makes no string.
public struct NearestFirstPage<Item, ID: Comparable> {
    // Inlinable, so that the server's walk sorts its own keys without a generic call per comparison. Pass closures
    // rather than key paths: a key path is projected through the runtime at each comparison.
    /// How many items the page is for.
    public let wanted: Int
    @usableFromInline let distance: (Item) -> Double
    @usableFromInline let id: (Item) -> ID
    @usableFromInline var settled: [Item] = []
    @usableFromInline var pending: [Item] = []
    /// Whether `pending` is in order: only items added since the last settle need it sorted again.
    @usableFromInline var pendingInOrder = true

    /// A page of `wanted` items ordered by `distance`, then `id`.
    @inlinable
    public init(wanted: Int, distance: @escaping (Item) -> Double, id: @escaping (Item) -> ID) {
        self.wanted = wanted
        self.distance = distance
        self.id = id
    }

    /// How many items the page holds so far, settled or not.
    @inlinable
    public var count: Int { settled.count + pending.count }

    /// How many items are settled so far.
    @inlinable
    public var settledCount: Int { settled.count }

    /// How many more items the page needs: no cell needs to give more than this.
    @inlinable
    public var stillWanted: Int { max(0, wanted - settled.count) }

    /// Settles the pending items nearer than `minimumDistance` (the next cell's) and returns whether the page is
    /// complete, so that the walk can stop.
    @inlinable
    public mutating func settle(before minimumDistance: Double) -> Bool {
        sortPending()
        let nearer = pending.prefix { distance($0) < minimumDistance }
        settled += nearer
        pending.removeFirst(nearer.count)
        return settled.count >= wanted
    }

    /// The items settled so far, in order: the page of a walk that ends before the page is complete, whose pending
    /// items, farther than the last settle's distance, a later page reads again.
    @inlinable
    public var settledItems: [Item] { Array(settled.prefix(wanted)) }

    /// Adds the items read from a cell.
    @inlinable
    public mutating func add(_ items: [Item]) {
        guard !items.isEmpty else { return }
        pending += items
        pendingInOrder = false
    }

    /// The page: the settled items, then the pending ones in order, `wanted` at most.
    @inlinable
    public mutating func finish() -> [Item] {
        sortPending()
        settled += pending
        pending = []
        return Array(settled.prefix(wanted))
    }

    @inlinable
    mutating func sortPending() {
        guard !pendingInOrder else { return }
        let (distance, id) = (self.distance, self.id)
        pending.sort { a, b in
            let (first, second) = (distance(a), distance(b))
            return first != second ? first < second : id(a) < id(b)
        }
        pendingInOrder = true
    }
}
