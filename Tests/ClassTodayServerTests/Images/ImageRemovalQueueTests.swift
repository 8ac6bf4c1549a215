import ClassTodayCore
import Foundation
import HummingbirdTesting
import Synchronization
import Testing
@testable import ClassTodayServer

/// An image store whose removals fail while ``failing`` is set (a store that cannot be reached), counting the tries.
final class FlakyImageStore: ImageRepository {
    let disk: DiskImageRepository
    private let state = Mutex((failing: false, removals: 0))

    init(root: String) throws { disk = try DiskImageRepository(root: root) }

    /// Whether removals fail.
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }
    /// How many removals were tried.
    var removals: Int { state.withLock { $0.removals } }

    func prepare(_ data: Data) async throws -> PreparedBlob { try await disk.prepare(data) }
    func commit(_ blob: PreparedBlob) async throws { try await disk.commit(blob) }
    func discard(_ blob: PreparedBlob) async { await disk.discard(blob) }
    func contains(sha256: String) async throws -> Bool { try await disk.contains(sha256: sha256) }
    func originalFile(sha256: String) async throws -> String? { try await disk.originalFile(sha256: sha256) }
    func variantFile(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String? {
        try await disk.variantFile(sha256: sha256, variant: variant, encoding: encoding)
    }
    func storeVariant(_ data: Data, sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String {
        try await disk.storeVariant(data, sha256: sha256, variant: variant, encoding: encoding)
    }
    func temporaryURL(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> TemporaryURL? { nil }
    func remove(sha256: String) async throws {
        let failing = state.withLock { state in
            state.removals += 1
            return state.failing
        }
        if failing { throw DomainError.unavailable("image storage cannot be reached right now", retryAfterSeconds: 5) }
        try await disk.remove(sha256: sha256)
    }
}

@Suite("Image removal queue")
struct ImageRemovalQueueTests {
    /// Runs `body` with a record repository over the test database and a flaky store, and a user id.
    private func withRepository(
        _ body: @Sendable (SQLImageRecordRepository, FlakyImageStore, String) async throws -> Void
    ) async throws {
        try await TestServer.withEnvironment(.router) { environment, _ in
            let store = try FlakyImageStore(root: environment.configuration.dataDirectory + "/flaky")
            let records = SQLImageRecordRepository(database: environment.storage.database, images: store)
            let user = try await environment.users.create(
                NewUser(email: "u-\(UUID().uuidString)@example.com", passwordHash: "hash", nickname: "u"), at: Date())
            try await body(records, store, user.id)
        }
    }

    /// Stores `bytes` as a new image of `userId`.
    private func upload(_ bytes: String, _ records: SQLImageRecordRepository, _ store: FlakyImageStore, _ userId: String) async throws -> ImageRecord {
        let blob = try await store.prepare(Data(bytes.utf8))
        let record = ImageRecord(id: Identifier.make(), sha256: blob.sha256, format: .png, bytes: blob.bytes, width: 1, height: 1,
                                 uploaderId: userId, createdAt: Date())
        try await records.create(record, blob: blob)
        return record
    }

    @Test("a removal that fails stays queued, is not tried before it is due, and goes once the store is back")
    func retried() async throws {
        try await withRepository { records, store, userId in
            let record = try await upload("bytes", records, store, userId)
            store.failing = true
            try await records.delete(id: record.id, by: userId)
            #expect(try await records.record(id: record.id) == nil, "the deletion itself succeeds")
            #expect(try await store.contains(sha256: record.sha256))
            #expect(store.removals == 1)
            let now = Date()
            #expect(try await records.removeQueuedFiles(now: now) == 0)
            #expect(store.removals == 1, "not due yet: 5 s after the first failure")
            #expect(try await records.removeQueuedFiles(now: now.addingTimeInterval(6)) == 0)
            #expect(store.removals == 2, "tried again when due, and failed again")
            #expect(try await records.removeQueuedFiles(now: now.addingTimeInterval(12)) == 0)
            #expect(store.removals == 2, "the second failure waits 10 s")
            store.failing = false
            #expect(try await records.removeQueuedFiles(now: now.addingTimeInterval(20)) == 1)
            #expect(try await !store.contains(sha256: record.sha256))
            #expect(try await records.removeQueuedFiles(now: now.addingTimeInterval(3600 * 24)) == 0)
            #expect(store.removals == 3)
        }
    }

    @Test("bytes uploaded again before a queued removal ran are kept, and the removal goes")
    func uploadedAgain() async throws {
        try await withRepository { records, store, userId in
            let first = try await upload("same", records, store, userId)
            store.failing = true
            try await records.delete(id: first.id, by: userId)
            let second = try await upload("same", records, store, userId)
            store.failing = false
            #expect(try await records.removeQueuedFiles(now: Date().addingTimeInterval(3600)) == 0)
            #expect(try await store.contains(sha256: second.sha256))
            #expect(try await records.record(id: second.id)?.sha256 == second.sha256)
            #expect(store.removals == 1, "only the failed first try touched the store")
        }
    }

    @Test("the delay doubles from 5 s and stays at an hour")
    func delays() {
        #expect([1, 2, 3, 4].map(SQLImageRecordRepository.retryDelay(afterFailures:)) == [5, 10, 20, 40])
        #expect(SQLImageRecordRepository.retryDelay(afterFailures: 12) == 3600)
        #expect(SQLImageRecordRepository.retryDelay(afterFailures: 1000) == 3600)
    }
}
