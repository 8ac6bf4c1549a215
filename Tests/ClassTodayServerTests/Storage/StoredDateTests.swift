import ClassTodayTestSupport
import Foundation
import Testing
@testable import ClassTodayServer

@Suite("Dates in storage form")
struct StoredDateTests {
    @Test("a stored millisecond read back and stored again is the same millisecond")
    func roundTrip() {
        var random = SeededRandom(seed: 46)
        let edges: [Int64] = [0, 1, -1, 999, 1_000, 117_161_946_887, 1_790_000_000_001, 4_102_444_800_000]
        for milliseconds in edges + (0..<10_000).map({ _ in Int64.random(in: -2_000_000_000_000...8_000_000_000_000, using: &random) }) {
            #expect(Date(millisecondsSince1970: milliseconds).millisecondsSince1970 == milliseconds)
        }
    }

    @Test("a date's millisecond is the one it falls in, not the nearest")
    func floor() {
        #expect(Date(timeIntervalSince1970: 1.9996).millisecondsSince1970 == 1_999)
        #expect(Date(timeIntervalSince1970: -0.0004).millisecondsSince1970 == -1)
    }
}
