import Logging
import Synchronization
import Testing
@testable import ClassTodayServer

/// The keyword tokens' counts kept in memory (``TokenCounts``).
@Suite("Keyword tokens' counts in memory")
struct TokenCountsTests {
    /// An index that counts each token as its length, but leaves out `none`, and remembers what it was asked. Each
    /// count waits for its turn when `turns` holds fewer than the counts asked so far, and the counts of `failing`
    /// turns fail.
    final class Index: Sendable {
        let asked = Mutex<[[String]]>([])
        let turns = Mutex(Int.max)
        let failing: Set<Int>

        init(failing: Set<Int> = []) {
            self.failing = failing
        }

        func count(_ tokens: [String]) async throws -> [String: Int] {
            let turn = asked.withLock { asked in
                asked.append(tokens)
                return asked.count
            }
            guard await eventually(timeout: TokenCountsTests.patience, { self.turns.withLock { $0 } >= turn }), !failing.contains(turn) else {
                throw CancellationError()
            }
            return Dictionary(uniqueKeysWithValues: tokens.compactMap { token in token == "none" ? nil : (token, token.count) })
        }
    }

    /// How long the tests wait for a count's task: long, since the whole suite running in parallel on two cores can
    /// keep a task from being scheduled for many seconds; a passing test never waits it out.
    static let patience: Duration = .seconds(120)

    /// A logger dropping its messages.
    static let logger = Logger(label: "test.token-counts") { _ in SwiftLogNoOpLogHandler() }

    @Test("a search gets the counts kept at once, and the others are counted apart, once however many searches lack them, and again after a count fails, which is logged")
    func countedApart() async throws {
        let index = Index(failing: [1])
        index.turns.withLock { $0 = 0 }
        let logged = LogRecords()
        let counts = TokenCounts(logger: logged.logger(label: "test.token-counts")) { tokens in try await index.count(tokens) }
        #expect(counts.counts(of: ["수학", "공업수"]) == [:])
        // A search lacking a token being counted starts no count of it.
        #expect(counts.counts(of: ["공업수"]) == [:])
        index.turns.withLock { $0 = 1 }
        // The first count failed and kept nothing: a search lacking the token counts it again.
        let recounted = await eventually(timeout: Self.patience) { counts.counts(of: ["공업수"]).isEmpty && index.asked.withLock { $0.count } == 2 }
        #expect(recounted)
        #expect(logged.levels == [.warning])
        index.turns.withLock { $0 = 2 }
        #expect(await eventually(timeout: Self.patience) { counts.counts(of: ["공업수"]) == ["공업수": 3] })
        #expect(index.asked.withLock { $0 } == [["수학", "공업수"], ["공업수"]])
    }

    @Test("a token is counted once and kept, and so are one the index leaves out and one it counts unasked; past the capacity the oldest half goes")
    func keptAndForgotten() async throws {
        let index = Index()
        let counts = TokenCounts(logger: Self.logger) { tokens in
            // Counted unasked beside another.
            try await index.count(tokens).merging(tokens.contains("영어") ? ["일본어": 9] : [:]) { first, _ in first }
        }
        _ = counts.counts(of: ["수학", "공업수"])
        #expect(await eventually(timeout: Self.patience) { counts.counts(of: ["수학", "none", "공업수"]) == ["수학": 2, "공업수": 3] })
        #expect(await eventually(timeout: Self.patience) { counts.counts(of: ["none"]) == [:] && index.asked.withLock { $0.count } == 2 })
        _ = counts.counts(of: ["영어"])
        #expect(await eventually(timeout: Self.patience) { counts.kept(["일본어", "영어"]) == ["일본어": 9, "영어": 2] })
        #expect(counts.kept(["중국어"]) == [:], "kept(_:) counts nothing")
        try await Task.sleep(for: .milliseconds(50))
        #expect(index.asked.withLock { $0 } == [["수학", "공업수"], ["none"], ["영어"]])

        // Filling past the capacity forgets the tokens counted first, and keeps half the capacity.
        let many = (0..<TokenCounts.capacity).map { "t\($0)" }
        _ = counts.counts(of: many)
        #expect(await eventually(timeout: Self.patience) { counts.kept(many).count == TokenCounts.capacity / 2 })
        #expect(counts.kept(["수학", "공업수", "영어", "일본어"]) == [:], "counted before the many")
    }

    @Test("a count past its lifetime is given as it was while the token is counted again")
    func oldCountGivenWhileCounted() async throws {
        let index = Index()
        // The first count runs at once and says 7 listings; the next waits until the test lets it run, and says 9.
        index.turns.withLock { $0 = 1 }
        let counts = TokenCounts(lifetime: .milliseconds(50), logger: Self.logger) { tokens in
            _ = try await index.count(tokens)
            let listings = index.asked.withLock { $0.count == 1 ? 7 : 9 }
            return Dictionary(uniqueKeysWithValues: tokens.map { ($0, listings) })
        }
        #expect(counts.counts(of: ["수학"]) == [:])
        #expect(await eventually(timeout: Self.patience) { counts.counts(of: ["수학"]) == ["수학": 7] })
        try await Task.sleep(for: .milliseconds(60))
        #expect(counts.counts(of: ["수학"]) == ["수학": 7], "the old count, while it is counted again")
        index.turns.withLock { $0 = 2 }
        #expect(await eventually(timeout: Self.patience) { counts.counts(of: ["수학"]) == ["수학": 9] })
    }
}
