@testable import ClassTodayClient
import Foundation
import Testing

/// The chat client's ordering rules, without a server.
@Suite("RoomSequencer and ReconnectBackoff")
struct RoomSequencerTests {
    private func message(_ seq: Int, in roomId: String = "room") -> Components.Schemas.Message {
        Components.Schemas.Message(
            id: "m\(seq)", roomId: roomId, seq: seq, senderId: "u", kind: .text, text: "\(seq)", imageUrl: nil,
            imageVariants: nil, clientId: "c\(seq)", sentAt: Date(timeIntervalSince1970: 0), removed: false
        )
    }

    @Test("repeats are dropped and a gap is held until the messages before it arrive")
    func ordersAndDeduplicates() {
        var sequencer = RoomSequencer()
        sequencer.follow(roomId: "room", after: 2)
        #expect(sequencer.accept(message(2)).deliver.isEmpty)
        #expect(sequencer.accept(message(3)).deliver.map(\.seq) == [3])
        let ahead = sequencer.accept(message(6))
        #expect(ahead.deliver.isEmpty && ahead.syncAfter == 3)
        #expect(sequencer.accept(message(5)).syncAfter == nil, "one sync per gap")
        #expect(sequencer.accept(message(4)).deliver.map(\.seq) == [4, 5, 6])
        #expect(sequencer.accept(message(5)).deliver.isEmpty)
        #expect(sequencer.lastSeq == ["room": 6])
    }

    @Test("a room seen first starts at its first message; following never moves a room back")
    func startsAndNeverMovesBack() {
        var sequencer = RoomSequencer()
        #expect(sequencer.accept(message(9, in: "new")).deliver.map(\.seq) == [9])
        sequencer.follow(roomId: "new", after: 4)
        #expect(sequencer.lastSeq["new"] == 9)
    }

    @Test("backoff doubles up to its maximum, jitters down only, and starts again after a reset")
    func backoff() {
        var backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0.5)
        let delays = (0..<6).map { _ in backoff.nextDelay() }
        let ceilings: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)]
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay <= ceiling && delay >= ceiling / 2)
        }
        backoff.reset()
        #expect(backoff.nextDelay() <= .milliseconds(100))
    }
}
