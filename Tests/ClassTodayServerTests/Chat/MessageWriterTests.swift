import ClassTodayCore
import Foundation
import Logging
import Synchronization
import Testing
@testable import ClassTodayServer

@Suite("Group commit")
struct MessageWriterTests {
    /// Counts the transactions a repository is asked for.
    final class CountingRepository: ChatRepository {
        let base: any ChatRepository
        let batches = Mutex<[Int]>([])

        init(base: any ChatRepository) { self.base = base }

        func openRoom(classId: String, userId: String, at date: Date) async throws -> (room: ChatRoom, created: Bool) {
            try await base.openRoom(classId: classId, userId: userId, at: date)
        }
        func room(id: String) async throws -> ChatRoom? { try await base.room(id: id) }
        func summary(roomId: String) async throws -> RoomSummary? { try await base.summary(roomId: roomId) }
        func rooms(of userId: String, page: PageRequest) async throws -> Page<RoomSummary> { try await base.rooms(of: userId, page: page) }
        func memberRooms(of userId: String) async throws -> [ChatRoom] { try await base.memberRooms(of: userId) }
        func history(roomId: String, beforeSeq: Int?, page: PageRequest) async throws -> Page<ChatMessage> {
            try await base.history(roomId: roomId, beforeSeq: beforeSeq, page: page)
        }
        func messages(roomId: String, afterSeq: Int, limit: Int) async throws -> [ChatMessage] {
            try await base.messages(roomId: roomId, afterSeq: afterSeq, limit: limit)
        }
        func append(_ batch: [OutgoingMessage], at date: Date) async throws -> [Result<AppendResult, DomainError>] {
            batches.withLock { $0.append(batch.count) }
            return try await base.append(batch, at: date)
        }
        func markRead(roomId: String, userId: String, seq: Int) async throws -> Int {
            try await base.markRead(roomId: roomId, userId: userId, seq: seq)
        }
    }

    @Test("concurrent sends into several rooms are stored in few transactions, each room's seqs gap-free, duplicates once")
    func batching() async throws {
        let configuration = try TestServer.configuration { $0.durableCommits = true }
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        let rooms = try await Self.rooms(4, in: environment)
        let counting = CountingRepository(base: environment.chats)
        let writer = MessageWriter(repository: counting)
        let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
            for index in 0..<400 {
                let room = rooms[index % rooms.count]
                // Every tenth send repeats the client id of the send before it in the same room.
                let clientId = index % 10 == 9 ? "c\(index - rooms.count)" : "c\(index)"
                group.addTask {
                    try await writer.append(OutgoingMessage(roomId: room.id, senderId: room.sellerId, clientId: clientId,
                                                            kind: .text, text: "\(index)", imageId: nil))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let stored = results.compactMap { if case .stored(let message) = $0 { message } else { nil } }
        #expect(stored.count + results.filter { if case .duplicate = $0 { true } else { false } }.count == 400)
        for room in rooms {
            let seqs = stored.filter { $0.roomId == room.id }.map(\.seq).sorted()
            #expect(seqs == Array(1...seqs.count), "room seqs are 1...n without gaps")
            let clientIds = stored.filter { $0.roomId == room.id }.compactMap(\.clientId)
            #expect(Set(clientIds).count == clientIds.count)
        }
        let batches = counting.batches.withLock { $0 }
        #expect(batches.reduce(0, +) >= 400)
        #expect(batches.count < 400, "sends arriving together share transactions (\(batches.count) transactions)")
    }

    @Test("a batch repeating a client id stored earlier returns that message and stores the rest with the next seqs")
    func repeatedClientIdInLaterBatch() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        let room = try #require(try await Self.rooms(1, in: environment).first)
        func text(_ clientId: String, _ text: String, from senderId: String? = nil) -> OutgoingMessage {
            OutgoingMessage(roomId: room.id, senderId: senderId ?? room.buyerId, clientId: clientId, kind: .text, text: text, imageId: nil)
        }
        // Whole milliseconds, as stored.
        let date = Date(millisecondsSince1970: Date().millisecondsSince1970)
        let first = try await environment.chats.append([text("a", "처음"), text("b", "둘째")], at: date)
        let second = try await environment.chats.append(
            [text("c", "셋째"), text("a", "다시"), text("d", "넷째", from: room.sellerId), text("b", "또")], at: date)
        #expect(try second[1].get() == .duplicate(try first[0].get().message))
        #expect(try second[3].get() == .duplicate(try first[1].get().message))
        #expect(try second.map { try $0.get() }.compactMap { if case .stored(let message) = $0 { message.seq } else { nil } } == [3, 4])
        let stored = try await environment.chats.messages(roomId: room.id, afterSeq: 0, limit: 10)
        #expect(stored.map(\.text) == ["처음", "둘째", "셋째", "넷째"])
        let updated = try #require(try await environment.chats.room(id: room.id))
        #expect(updated.lastSeq == 4)
        #expect(updated.sellerReadSeq == 4)
        #expect(updated.buyerReadSeq == 3)
    }

    /// `count` rooms between one seller and a buyer each.
    static func rooms(_ count: Int, in environment: ServerEnvironment) async throws -> [ChatRoom] {
        let seller = try await environment.users.create(NewUser(email: "s@example.com", passwordHash: "x", nickname: "s"), at: Date())
        var rooms: [ChatRoom] = []
        for index in 0..<count {
            let buyer = try await environment.users.create(NewUser(email: "b\(index)@example.com", passwordHash: "x", nickname: "b"), at: Date())
            let now = Date()
            let listing = ClassListing(
                id: Identifier.make(at: now), type: .sell, name: "수업 \(index)", description: "", days: [], time: nil, place: nil,
                location: nil, keywordLocation: nil, price: nil, priceUnit: .perHour, subjects: [], targets: [], capacity: 1,
                status: .open, imageIds: [], writerId: seller.id, favoriteCount: 0, createdAt: now, updatedAt: now)
            _ = try await environment.classes.create(listing)
            rooms.append(try await environment.chats.openRoom(classId: listing.id, userId: buyer.id, at: now).room)
        }
        return rooms
    }
}
