import Synchronization
import Testing
@testable import ClassTodayServer

/// The keyword tokens' counts kept in memory (``TokenCounts``).
@Suite("Keyword tokens' counts in memory")
struct TokenCountsTests {
    /// A count function that answers `count(token)` and remembers what it was asked.
    final class Index: Sendable {
        let asked = Mutex<[[String]]>([])

        func count(_ tokens: [String]) -> [String: Int] {
            asked.withLock { $0.append(tokens) }
            return Dictionary(uniqueKeysWithValues: tokens.compactMap { token in token == "none" ? nil : (token, token.count) })
        }
    }

    @Test("a token is counted once and kept, and so are one the index leaves out and one it counts unasked; past the capacity the oldest half goes")
    func keptAndForgotten() async throws {
        let (counts, index) = (TokenCounts(), Index())
        #expect(try await counts.counts(of: ["수학", "공업수"]) { index.count($0) } == ["수학": 2, "공업수": 3])
        #expect(try await counts.counts(of: ["수학", "none", "공업수"]) { index.count($0) } == ["수학": 2, "공업수": 3])
        #expect(try await counts.counts(of: ["none"]) { index.count($0) } == [:])
        #expect(index.asked.withLock { $0 } == [["수학", "공업수"], ["none"]])
        // Tokens counted beyond those asked are kept too.
        #expect(try await counts.counts(of: ["영어"]) { _ in ["영어": 7, "일본어": 9] } == ["영어": 7])
        #expect(try await counts.counts(of: ["일본어"]) { _ in [:] } == ["일본어": 9])

        // Filling past the capacity forgets the tokens counted first, and keeps half the capacity.
        let many = (0..<TokenCounts.capacity).map { "t\($0)" }
        _ = try await counts.counts(of: many) { index.count($0) }
        index.asked.withLock { $0 = [] }
        _ = try await counts.counts(of: ["수학"]) { index.count($0) }
        _ = try await counts.counts(of: many) { index.count($0) }
        #expect(index.asked.withLock { $0.map(\.count) } == [1, TokenCounts.capacity / 2])
    }

    /// Counts that each wait for their turn, the first of which fails.
    final class TurnTaking: Sendable {
        let asked = Mutex<[[String]]>([])
        let turns = Mutex(0)
        let ended = Mutex(0)

        func count(_ tokens: [String]) async throws -> [String: Int] {
            let turn = asked.withLock { asked in
                asked.append(tokens)
                return asked.count
            }
            guard await eventually({ self.turns.withLock { $0 } >= turn }) else { throw CancellationError() }
            defer { ended.withLock { $0 += 1 } }
            if turn == 1 { throw CancellationError() }
            return Dictionary(uniqueKeysWithValues: tokens.map { ($0, $0.count) })
        }
    }

    @Test("a cache counting apart answers at once with the counts it keeps, counts the others once however many searches lack them, and after a failed count counts them again")
    func countedApart() async throws {
        let counter = TurnTaking()
        let counts = TokenCounts { tokens in try await counter.count(tokens) }
        let within: @Sendable ([String]) async throws -> [String: Int] = { _ in
            Issue.record("counted within the search")
            return [:]
        }
        #expect(try await counts.counts(of: ["수학", "공업수"], count: within) == [:])
        // A search lacking a token being counted starts no count of it.
        #expect(try await counts.counts(of: ["공업수"], count: within) == [:])
        counter.turns.withLock { $0 = 1 }
        #expect(await eventually { counter.ended.withLock { $0 } == 1 })
        // The count failed and kept nothing: a search lacking the token counts it again.
        let recounted = try await eventually {
            try await counts.counts(of: ["공업수"], count: within).isEmpty && counter.asked.withLock { $0.count } == 2
        }
        #expect(recounted)
        counter.turns.withLock { $0 = 2 }
        #expect(try await eventually { try await counts.counts(of: ["공업수"], count: within) == ["공업수": 3] })
        #expect(counter.asked.withLock { $0 } == [["수학", "공업수"], ["공업수"]])
    }

    @Test("a cache counting apart gives a count past its lifetime as it was while it counts the token again")
    func oldCountGivenWhileCounted() async throws {
        // The first count says 7 listings, the later ones 9.
        let index = Index()
        let counts = TokenCounts(lifetime: .milliseconds(50)) { tokens in
            let listings = index.asked.withLock { asked in
                asked.append(tokens)
                return asked.count == 1 ? 7 : 9
            }
            return Dictionary(uniqueKeysWithValues: tokens.map { ($0, listings) })
        }
        let within: @Sendable ([String]) async throws -> [String: Int] = { _ in [:] }
        #expect(try await counts.counts(of: ["수학"], count: within) == [:])
        #expect(try await eventually { try await counts.counts(of: ["수학"], count: within) == ["수학": 7] })
        try await Task.sleep(for: .milliseconds(60))
        #expect(try await counts.counts(of: ["수학"], count: within) == ["수학": 7], "the old count, while it is counted again")
        #expect(try await eventually { try await counts.counts(of: ["수학"], count: within) == ["수학": 9] })
    }
}
