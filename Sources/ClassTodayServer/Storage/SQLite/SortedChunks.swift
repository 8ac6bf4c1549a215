/// An element of ``SortedChunks``, which keeps elements in the order of their ``order``, one element per order.
protocol ChunkSorted: Sendable {
    associatedtype Order: Comparable & Sendable
    /// Where the element goes; no two elements share one.
    var order: Order { get }
}

/// Elements kept in order in chunks of a few hundred, so that an insert or removal moves one chunk's elements rather
/// than all of them, and a copy shares every chunk it does not change. Finding an element is two binary searches: one
/// over the chunks' fences, one in a chunk.
struct SortedChunks<Element: ChunkSorted>: Sendable {
    /// The elements in order, in chunks of at most twice ``chunkSize``, none empty.
    private var chunks: [[Element]] = []
    /// Each chunk's last order and size, side by side in one small array. A search across chunks, or a count of many,
    /// reads these rather than the chunks, each its own allocation: at a place read for the first time, every chunk
    /// touched was a cache miss, which made a page's walk slower there than where it had just read.
    private var fences: [Fence] = []

    /// What a chunk's neighbours need to know of it.
    private struct Fence: Sendable {
        var last: Element.Order
        var count: Int

        init(_ chunk: [Element]) {
            (last, count) = (chunk[chunk.count - 1].order, chunk.count)
        }
    }

    /// How many elements a chunk holds when made from a sorted array; a chunk grown to twice as many is split.
    static var chunkSize: Int { 512 }

    /// The elements of `sorted`, which is in order.
    init(sorted: [Element]) {
        var start = 0
        while start < sorted.count {
            let end = min(start + Self.chunkSize, sorted.count)
            chunks.append(Array(sorted[start..<end]))
            fences.append(Fence(chunks[chunks.count - 1]))
            start = end
        }
    }

    /// A place between elements: a chunk and an offset in it, or `(chunks.count, 0)` past the last.
    typealias Position = (chunk: Int, offset: Int)

    /// How many elements there are.
    var count: Int { fences.reduce(0) { $0 + $1.count } }

    /// The element whose order is `order`, if any.
    func element(at order: Element.Order) -> Element? {
        let (chunk, offset) = position(of: order)
        guard chunk < chunks.count, offset < chunks[chunk].count, chunks[chunk][offset].order == order else { return nil }
        return chunks[chunk][offset]
    }

    /// How many elements have an order in `orders`.
    func count(in orders: Range<Element.Order>) -> Int {
        let (start, end) = (position(of: orders.lowerBound), position(of: orders.upperBound))
        guard start.chunk < end.chunk else { return end.offset - start.offset }
        var total = fences[start.chunk].count - start.offset + (end.chunk < chunks.count ? end.offset : 0)
        for chunk in (start.chunk + 1)..<end.chunk { total += fences[chunk].count }
        return total
    }

    /// Calls `body` with each element whose order is in `orders`, in order.
    func forEach(in orders: Range<Element.Order>, _ body: (Element) -> Void) {
        var (chunk, offset) = position(of: orders.lowerBound)
        while chunk < chunks.count {
            let elements = chunks[chunk]
            while offset < elements.count {
                guard elements[offset].order < orders.upperBound else { return }
                body(elements[offset])
                offset += 1
            }
            (chunk, offset) = (chunk + 1, 0)
        }
    }

    /// Adds `element`, in place of the one of the same order, if any.
    mutating func insert(_ element: Element) {
        let (chunk, offset) = position(of: element.order)
        guard chunk < chunks.count else {
            if chunks.isEmpty {
                chunks.append([element])
                fences.append(Fence(chunks[0]))
            } else {
                chunks[chunks.count - 1].append(element)
                fences[chunks.count - 1] = Fence(chunks[chunks.count - 1])
            }
            return
        }
        if offset < chunks[chunk].count, chunks[chunk][offset].order == element.order {
            chunks[chunk][offset] = element
            return
        }
        chunks[chunk].insert(element, at: offset)
        if chunks[chunk].count >= 2 * Self.chunkSize {
            let upper = Array(chunks[chunk][Self.chunkSize...])
            chunks[chunk].removeSubrange(Self.chunkSize...)
            chunks.insert(upper, at: chunk + 1)
            fences.insert(Fence(upper), at: chunk + 1)
        }
        fences[chunk] = Fence(chunks[chunk])
    }

    /// Removes and returns the element whose order is `order`, if any.
    @discardableResult
    mutating func remove(at order: Element.Order) -> Element? {
        let (chunk, offset) = position(of: order)
        guard chunk < chunks.count, offset < chunks[chunk].count, chunks[chunk][offset].order == order else { return nil }
        let removed = chunks[chunk].remove(at: offset)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            fences.remove(at: chunk)
        } else {
            fences[chunk] = Fence(chunks[chunk])
        }
        return removed
    }

    /// The place of the first element whose order is not below `order`.
    private func position(of order: Element.Order) -> Position {
        // The first chunk whose last element is not below the order, then the place in it.
        var (low, high) = (0, chunks.count)
        while low < high {
            let middle = (low + high) / 2
            if fences[middle].last < order { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (low, 0) }
        let elements = chunks[low]
        var (first, last) = (0, elements.count)
        while first < last {
            let middle = (first + last) / 2
            if elements[middle].order < order { first = middle + 1 } else { last = middle }
        }
        return (low, first)
    }
}
