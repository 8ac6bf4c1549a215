/// The geohash cells of a circle, nearest first: a best-first walk for nearest-neighbour searches.
///
/// The walk starts from a handful of coarse cells covering the circle and keeps them in a priority queue
/// ordered by their minimum distance from the centre (``GeohashCover/minimumDistance(from:to:)``). The caller
/// pops the nearest cell and either reads it or ``split(_:)``s it into its 32 children, which join the queue;
/// children that do not reach the circle are dropped. So a search reads cells in order of distance, splits
/// only where data is dense, and can stop as soon as its best unread cell is farther than the results it
/// has — every listing nearer than a popped cell's minimum distance lies in a cell already popped.
///
/// ```swift
/// var walk = NearestCellWalk(center: here, radius: 2_000)
/// while let entry = walk.popNearest() {
///     if found.count >= 20, found.last!.distance < entry.minimumDistance { break }
///     if isCrowded(entry.cell) { walk.split(entry) } else { read(entry.cell) }
/// }
/// ```
public struct NearestCellWalk: Sendable {
    /// A cell waiting in the walk, with its minimum distance from the centre.
    public struct Entry: Sendable, Hashable {
        /// The cell.
        public let cell: Geohash
        /// A lower bound on the distance in meters from the centre to any point of the cell.
        public let minimumDistance: Double
    }

    /// The largest number of cells the starting cover spans (before filtering by distance).
    static let startingCellBudget = 16

    private let center: GeoPoint
    private let radius: Double
    private var queue: [Entry] = []

    /// A walk over the cells within `radius` meters of `center`. Works across the antimeridian and around the
    /// poles; a negative or NaN radius or a non-finite centre gives an empty walk.
    public init(center: GeoPoint, radius: Double) {
        self.center = center.normalized
        self.radius = radius
        guard center.lat.isFinite, center.lon.isFinite, !radius.isNaN, radius >= 0 else { return }
        let angle = radius / Haversine.earthRadiusMeters
        let region = angle < .pi
            ? GeohashCover.searchBox(center: self.center, angle: angle)
            : GeoBoundingBox(minLat: -90, maxLat: 90, minLon: -180, maxLon: 180)
        let grid = GeohashCover.finestGrid(for: region, budget: Self.startingCellBudget)
        GeohashCover.forEachCell(in: region, grid: grid) { row, column in
            push(Geohash(precision: grid.precision, bits: grid.cellIndex(row: row, column: column)))
        }
    }

    /// Whether no cell is left.
    public var isEmpty: Bool { queue.isEmpty }

    /// Removes and returns the cell nearest to the centre (the smallest minimum distance), or nil when the
    /// walk is over.
    public mutating func popNearest() -> Entry? {
        guard !queue.isEmpty else { return nil }
        queue.swapAt(0, queue.count - 1)
        let nearest = queue.removeLast()
        siftDown(from: 0)
        return nearest
    }

    /// Queues the children of a popped cell that reach the circle, in place of the cell itself. A cell at
    /// ``Geohash/maximumPrecision`` has no children; splitting it drops it.
    public mutating func split(_ entry: Entry) {
        for child in entry.cell.children {
            push(child)
        }
    }

    /// Queues `cell` when it reaches the circle.
    private mutating func push(_ cell: Geohash) {
        let distance = GeohashCover.minimumDistance(from: center, to: cell.bounds)
        guard distance <= radius else { return }
        queue.append(Entry(cell: cell, minimumDistance: distance))
        siftUp(from: queue.count - 1)
    }

    private mutating func siftUp(from index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard queue[child].minimumDistance < queue[parent].minimumDistance else { return }
            queue.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < queue.count, queue[left].minimumDistance < queue[smallest].minimumDistance { smallest = left }
            if right < queue.count, queue[right].minimumDistance < queue[smallest].minimumDistance { smallest = right }
            guard smallest != parent else { return }
            queue.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
