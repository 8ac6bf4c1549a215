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
}
