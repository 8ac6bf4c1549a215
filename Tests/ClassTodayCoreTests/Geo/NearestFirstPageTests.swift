import Testing
@testable import ClassTodayCore

/// Tests for ``NearestFirstPage``.
@Suite("Nearest-first page")
struct NearestFirstPageTests {
    struct Item: Equatable {
        let id: String
        let distance: Double
    }

    /// Checks that items settle only once no later cell can beat them, in (distance, id) order.
    @Test("items settle below the next cell's distance, ties by id, and the page stops when full")
    func settling() {
        var page = NearestFirstPage<Item, String>(wanted: 3, distance: { $0.distance }, id: { $0.id })
        page.add([Item(id: "b", distance: 50), Item(id: "a", distance: 50), Item(id: "c", distance: 400)])
        let completeAt40 = page.settle(before: 40)
        #expect(!completeAt40 && page.stillWanted == 3, "nothing is nearer than 40 m yet")
        let completeAt100 = page.settle(before: 100)
        #expect(!completeAt100 && page.stillWanted == 1, "a and b are settled")
        page.add([Item(id: "d", distance: 120)])
        let completeAt200 = page.settle(before: 200)
        #expect(completeAt200, "d settles and completes the page")
        let items = page.finish()
        #expect(items == [Item(id: "a", distance: 50), Item(id: "b", distance: 50), Item(id: "d", distance: 120)])
    }

    /// Checks that a walk that runs out of cells settles what is pending.
    @Test("when the walk ends, pending items settle in order, up to the wanted count")
    func finishing() {
        var page = NearestFirstPage<Item, String>(wanted: 2, distance: { $0.distance }, id: { $0.id })
        page.add([Item(id: "z", distance: 9), Item(id: "y", distance: 3), Item(id: "x", distance: 5)])
        let ids = page.finish().map(\.id)
        #expect(ids == ["y", "x"])
        var empty = NearestFirstPage<Item, String>(wanted: 2, distance: { $0.distance }, id: { $0.id })
        let none = empty.finish()
        #expect(none.isEmpty)
    }
}
