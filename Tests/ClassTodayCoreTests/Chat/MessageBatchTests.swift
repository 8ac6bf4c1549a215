import ClassTodayCore
import Foundation
import Testing

@Suite("Message batches")
struct MessageBatchTests {
    let date = Date(timeIntervalSince1970: 1_790_000_000)
    let room = ChatRoom(id: "r1", classId: "c1", sellerId: "seller", buyerId: "buyer", createdAt: Date(timeIntervalSince1970: 0),
                        lastSeq: 7, sellerReadSeq: 7, buyerReadSeq: 3)
    let other = ChatRoom(id: "r0", classId: "c0", sellerId: "seller", buyerId: "someone", createdAt: Date(timeIntervalSince1970: 0))

    func text(_ roomId: String, from senderId: String, clientId: String? = nil, _ text: String = "안녕하세요") -> OutgoingMessage {
        OutgoingMessage(roomId: roomId, senderId: senderId, clientId: clientId, kind: .text, text: text, imageId: nil)
    }

    @Test("each stored message takes its room's next seq, in batch order, and its sender has read it")
    func seqs() {
        let batch = [text("r1", from: "buyer"), text("r0", from: "seller"), text("r1", from: "seller"), text("r1", from: "buyer")]
        let plan = MessageBatch(batch, rooms: ["r1": room, "r0": other], existing: [], at: date)
        #expect(plan.stored.map(\.roomId) == ["r1", "r0", "r1", "r1"])
        #expect(plan.stored.map(\.seq) == [8, 1, 9, 10])
        #expect(plan.stored.allSatisfy { $0.sentAt == date })
        #expect(Set(plan.stored.map(\.id)).count == 4)
        #expect(plan.changedRooms.map(\.id) == ["r0", "r1"], "rooms come in id order, the order writers lock them")
        let changed = plan.changedRooms[1]
        #expect(changed.lastSeq == 10)
        #expect(changed.lastActivityAt == date)
        #expect(changed.sellerReadSeq == 9)
        #expect(changed.buyerReadSeq == 10)
        #expect(plan.changedRooms[0].sellerReadSeq == 1)
        #expect(plan.changedRooms[0].buyerReadSeq == 0)
    }

    @Test("a missing room or a sender who is not a member fails alone, taking no seq")
    func failures() {
        let batch = [text("gone", from: "buyer"), text("r1", from: "stranger"), text("r1", from: "buyer")]
        let plan = MessageBatch(batch, rooms: ["r1": room], existing: [], at: date)
        #expect(plan.results[0] == .failure(.notFound("room")))
        #expect(plan.results[1] == .failure(.forbidden("only the room's members may write in it")))
        #expect(plan.stored.map(\.seq) == [8])
        #expect(plan.results[2] == .success(.stored(plan.stored[0])))
    }

    @Test("a client id used before, in the store or earlier in the batch, returns the first message and takes no seq")
    func duplicates() throws {
        let earlier = ChatMessage(id: "m7", roomId: "r1", seq: 7, senderId: "buyer", kind: .text, text: "first", imageId: nil,
                                  clientId: "a", sentAt: Date(timeIntervalSince1970: 10))
        let batch = [text("r1", from: "buyer", clientId: "a", "again"), text("r1", from: "buyer", clientId: "b"),
                     text("r1", from: "buyer", clientId: "b", "twice in one batch"), text("r1", from: "seller", clientId: "b")]
        #expect(MessageBatch.clientKeys(of: batch).map(\.clientId) == ["a", "b", "b", "b"])
        let plan = MessageBatch(batch, rooms: ["r1": room], existing: [earlier], at: date)
        #expect(plan.results[0] == .success(.duplicate(earlier)))
        let stored = try #require(plan.stored.first)
        #expect(plan.results[1] == .success(.stored(stored)))
        #expect(plan.results[2] == .success(.duplicate(stored)), "the copy in the same batch finds the message stored just before it")
        #expect(plan.stored.map(\.seq) == [8, 9], "the seller's own client id b is a different message")
        #expect(plan.stored.map(\.senderId) == ["buyer", "seller"])
    }

    @Test("a batch of only duplicates and failures changes no room")
    func nothingStored() {
        let plan = MessageBatch([text("gone", from: "buyer")], rooms: [:], existing: [], at: date)
        #expect(plan.stored.isEmpty)
        #expect(plan.changedRooms.isEmpty)
        #expect(MessageBatch([], rooms: [:], existing: [], at: date).results.isEmpty)
    }
}
