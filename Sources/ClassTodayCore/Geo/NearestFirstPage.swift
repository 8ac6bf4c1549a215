/// Collects the first `wanted` items of a nearest-first search while a ``NearestCellWalk`` hands out cells.
///
/// Items read from cells wait as *pending* until the walk's next cell cannot hold anything nearer: every item
/// nearer than that cell's minimum distance is then *settled*, in order. The page is complete once `wanted`
/// items are settled; whatever is still pending when the walk ends is settled last.
///
/// ```swift
/// var page = NearestFirstPage<Key>(wanted: 21, distance: \.distance, id: \.id)
/// while let entry = walk.popNearest(), !page.settle(before: entry.minimumDistance) {
///     page.add(try read(entry.cell, limit: page.stillWanted))
/// }
/// let keys = page.finish()
/// ```
public struct NearestFirstPage<Item> {
    private let wanted: Int
    private let distance: (Item) -> Double
    private let id: (Item) -> String
    private var settled: [Item] = []
    private var pending: [Item] = []

    /// A page of `wanted` items ordered by `distance`, then `id`.
    public init(wanted: Int, distance: @escaping (Item) -> Double, id: @escaping (Item) -> String) {
        self.wanted = wanted
        self.distance = distance
        self.id = id
    }

    /// How many more items the page needs: no cell needs to give more than this.
    public var stillWanted: Int { max(0, wanted - settled.count) }

    /// Settles the pending items nearer than `minimumDistance` (the next cell's) and returns whether the page is
    /// complete, so that the walk can stop.
    public mutating func settle(before minimumDistance: Double) -> Bool {
        pending.sort(by: nearer)
        let nearer = pending.prefix { distance($0) < minimumDistance }
        settled += nearer
        pending.removeFirst(nearer.count)
        return settled.count >= wanted
    }

    /// Adds the items read from a cell.
    public mutating func add(_ items: [Item]) {
        pending += items
    }

    /// The page: the settled items, then the pending ones in order, `wanted` at most.
    public mutating func finish() -> [Item] {
        settled += pending.sorted(by: nearer)
        pending = []
        return Array(settled.prefix(wanted))
    }

    private func nearer(_ a: Item, _ b: Item) -> Bool {
        let (first, second) = (distance(a), distance(b))
        return first != second ? first < second : id(a) < id(b)
    }
}
