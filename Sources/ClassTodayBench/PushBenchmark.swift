import ClassTodayCore
import ClassTodayPushFakes
import ClassTodayServer
import Foundation
import Logging

/// `classtoday-bench push`: chat messages to offline recipients, each with an iOS device, delivered through the real
/// push path (outbox, expansion, claims, the APNs client over HTTP/2 and TLS) to a fake APNs on loopback. It reports
/// pushes per second and the delay from a message being stored to APNs accepting its push.
public struct PushBenchmark: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// Offline recipients, one message each.
        public var recipients = 10_000
        /// Messages written per transaction (one group commit).
        public var batch = 100
        /// Messages stored per second; 0 stores them as fast as the database takes them (one burst).
        public var rate = 0

        /// The defaults: 10,000 recipients.
        public init() {}
    }

    private let options: Options
    private let configuration: AppConfiguration
    private let logger: Logger

    /// A benchmark over a fresh data folder inside `configuration`'s (or its PostgreSQL database).
    public init(_ options: Options, configuration: AppConfiguration, logger: Logger) {
        self.options = options
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs the benchmark and returns the report's lines; `progress` hears (done, total) while setting up.
    public func run(progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [String] {
        let fake = try FakeAPNs()
        return try await fake.run { port in
            let folder = (configuration.dataDirectory as NSString).appendingPathComponent("bench-push-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try fake.keyPEM.write(toFile: folder + "/apns.p8", atomically: true, encoding: .utf8)
            try fake.caPEM.write(toFile: folder + "/ca.pem", atomically: true, encoding: .utf8)
            var configuration = configuration
            configuration.dataDirectory = folder
            configuration.push.apns.keyPath = folder + "/apns.p8"
            configuration.push.apns.keyId = fake.keyId
            configuration.push.apns.teamId = fake.teamId
            configuration.push.apns.topic = fake.topic
            configuration.push.apns.endpoint = "https://127.0.0.1:\(port)"
            configuration.push.trustedCAPath = folder + "/ca.pem"
            let environment = try await ServerEnvironment.open(configuration, logger: logger)
            defer { environment.close() }
            let rooms = try await setUp(environment, progress: progress)
            return try await measure(environment, rooms: rooms, fake: fake)
        }
    }

    /// The sender, the recipients with their devices and one room each; returns (room, sender) pairs.
    private func setUp(_ environment: ServerEnvironment, progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [(room: String, sender: String)] {
        let users = environment.users
        let sender = try await users.create(NewUser(email: "bench-push-teacher@bench.classtoday.app", passwordHash: "x", nickname: "벤치 선생님"), at: Date())
        let listing = ClassListing(
            id: Identifier.make(), type: .sell, name: "푸시 벤치 수업", description: "푸시 벤치마크", days: [.sat], time: nil,
            place: nil, location: nil, keywordLocation: nil, price: 20000, priceUnit: .perHour, subjects: [.math], targets: [.all],
            capacity: 1, status: .open, imageIds: [], writerId: sender.id, favoriteCount: 0, createdAt: Date(), updatedAt: Date())
        _ = try await environment.classes.create(listing)
        var rooms: [(room: String, sender: String)] = []
        for index in 0..<options.recipients {
            let recipient = try await users.create(
                NewUser(email: "bench-push-\(index)-\(UUID().uuidString.prefix(8))@bench.classtoday.app", passwordHash: "x", nickname: "학생\(index)"),
                at: Date())
            let token = (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined()
            _ = try await environment.devices.register(
                DeviceRegistration(token: token, platform: .ios, appVersion: "1.0", locale: "ko-KR"), userId: recipient.id,
                sessionTokenHash: "bench-\(index)", at: Date())
            let (room, _) = try await environment.chats.openRoom(classId: listing.id, userId: recipient.id, at: Date())
            rooms.append((room.id, sender.id))
            if index % 500 == 0 { progress(index, options.recipients) }
        }
        progress(options.recipients, options.recipients)
        return rooms
    }

    /// Writes one message per room in batches while the delivery service runs, and times the pushes.
    private func measure(_ environment: ServerEnvironment, rooms: [(room: String, sender: String)], fake: FakeAPNs) async throws -> [String] {
        let service = PushDeliveryService(
            queue: environment.pushQueue, credentials: environment.pushCredentials, settings: environment.configuration.push,
            online: { _ in [] }, metrics: environment.metrics, logger: logger)
        let delivery = Task { try await service.run() }
        let start = ContinuousClock.now
        let startDate = Date()
        var storedAt: [String: Date] = [:]
        for offset in stride(from: 0, to: rooms.count, by: options.batch) {
            if options.rate > 0 {
                try await Task.sleep(until: start + .seconds(Double(offset) / Double(options.rate)), clock: .continuous)
            }
            let batch = rooms[offset..<min(offset + options.batch, rooms.count)].map {
                OutgoingMessage(roomId: $0.room, senderId: $0.sender, clientId: UUID().uuidString, kind: .text, text: "수업 문의 드려요", imageId: nil)
            }
            for result in try await environment.chats.append(batch, at: Date()) {
                if case .success(let appended) = result { storedAt[appended.message.id] = appended.message.sentAt }
            }
            service.pushQueued()
        }
        let written = ContinuousClock.now - start
        let deadline = ContinuousClock.now + .seconds(600)
        while fake.received.count < rooms.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let received = fake.received
        delivery.cancel()
        _ = try? await delivery.value
        var delays = LatencySample()
        for push in received {
            guard let messageId = push.data["messageId"], let stored = storedAt[messageId] else { continue }
            delays.record(.milliseconds(Int64((push.receivedAt.timeIntervalSince(stored) * 1000).rounded())))
        }
        let last = received.map(\.receivedAt).max() ?? startDate
        let seconds = max(last.timeIntervalSince(startDate), 0.001)
        let backend: String
        switch environment.storage {
        case .sqlite: backend = "SQLite"
        case .postgres: backend = "PostgreSQL"
        }
        return [
            "push bench: \(rooms.count) offline recipients, one iOS device each, one message each (\(options.batch) per transaction, "
                + (options.rate > 0 ? "\(options.rate) messages/s" : "as fast as stored") + "), \(backend)",
            "fake APNs on loopback, HTTP/2 over TLS: headers and payload checked on every push, the ES256 provider token once per token",
            "messages stored in \(LatencySample.format(written.seconds * 1000, decimals: 0)) ms",
            "pushes accepted: \(received.count) of \(rooms.count), duplicates: \(received.count - Set(received.compactMap { $0.data["messageId"] }).count)",
            "pushes per second: \(Int((Double(received.count) / seconds).rounded())) (first message stored to last push accepted: \(String(format: "%.2f", seconds)) s)",
            "delay from message stored to push accepted: p50 \(LatencySample.format(delays.percentile(0.5), decimals: 0)) ms, p99 \(LatencySample.format(delays.percentile(0.99), decimals: 0)) ms",
        ]
    }
}
