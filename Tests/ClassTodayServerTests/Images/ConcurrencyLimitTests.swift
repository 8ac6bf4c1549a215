import Testing
@testable import ClassTodayServer

@Suite("Concurrency limit")
struct ConcurrencyLimitTests {
    /// Counts holders, remembering the most at once.
    actor Gauge {
        private(set) var current = 0
        private(set) var most = 0
        func enter() { current += 1; most = max(most, current) }
        func leave() { current -= 1 }
    }

    @Test("never more holders than its width, and every waiter runs", arguments: [1, 2, 3])
    func bounded(width: Int) async throws {
        let limit = ConcurrencyLimit(width: width)
        let gauge = Gauge()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<24 {
                group.addTask {
                    try await limit.run {
                        await gauge.enter()
                        try await Task.sleep(for: .milliseconds(2))
                        await gauge.leave()
                        return index
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0..<24))
        #expect(await gauge.most == width)
    }
}
