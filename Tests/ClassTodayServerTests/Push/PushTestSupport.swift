import ClassTodayPushFakes
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

/// The fake APNs (HTTP/2 over TLS) and FCM servers of a test, on loopback, with the key files the server reads.
struct PushFakes: Sendable {
    let apns: FakeAPNs
    let fcm: FakeFCM
    let apnsPort: Int
    let fcmPort: Int
    let folder: String

    /// Runs `body` with both fakes listening; the key files are removed afterwards.
    static func run<Value: Sendable>(_ body: @Sendable (PushFakes) async throws -> Value) async throws -> Value {
        let apns = try FakeAPNs()
        let fcm = try FakeFCM()
        return try await apns.run { apnsPort in
            try await fcm.run { fcmPort in
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString)").path
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: folder) }
                try apns.keyPEM.write(toFile: folder + "/apns.p8", atomically: true, encoding: .utf8)
                try apns.caPEM.write(toFile: folder + "/ca.pem", atomically: true, encoding: .utf8)
                try fcm.serviceAccountJSON(port: fcmPort).write(toFile: folder + "/service-account.json", atomically: true, encoding: .utf8)
                return try await body(PushFakes(apns: apns, fcm: fcm, apnsPort: apnsPort, fcmPort: fcmPort, folder: folder))
            }
        }
    }

    /// Points `configuration` at the fakes, trusting the APNs fake's CA, with quick polls and retries.
    func configure(_ configuration: inout AppConfiguration) {
        configuration.push.apns.keyPath = folder + "/apns.p8"
        configuration.push.apns.keyId = apns.keyId
        configuration.push.apns.teamId = apns.teamId
        configuration.push.apns.topic = apns.topic
        configuration.push.apns.endpoint = "https://127.0.0.1:\(apnsPort)"
        configuration.push.fcm.serviceAccountPath = folder + "/service-account.json"
        configuration.push.fcm.endpoint = "http://127.0.0.1:\(fcmPort)"
        configuration.push.trustedCAPath = folder + "/ca.pem"
        configuration.push.pollInterval = .milliseconds(50)
        configuration.push.retryBase = .milliseconds(50)
        configuration.push.retryMaximum = .seconds(1)
    }

    /// Runs `body` against the app configured for the fakes (`setup` `.router`, or `.live` for sockets).
    func withApp<Value: Sendable>(
        _ setup: TestingSetup = .router, configure customize: @escaping (inout AppConfiguration) -> Void = { _ in },
        _ body: @Sendable (ServerEnvironment, any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await TestServer.withEnvironment(setup, configure: { configuration in
            self.configure(&configuration)
            customize(&configuration)
        }, body)
    }
}

/// Waits until `condition` holds, checking every 20 ms for at most `timeout` (generous: a passing test never waits
/// it out, and a loaded machine may be slow); returns whether it held.
@discardableResult
func eventually(timeout: Duration = .seconds(15), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

extension ServerEnvironment {
    /// How many pushes are queued or waiting for delivery.
    func pendingPushes() async throws -> Int {
        let outbox: Int = try await storage.database.row("SELECT COUNT(*) AS n FROM push_outbox")?["n"] ?? -1
        let deliveries: Int = try await storage.database.row("SELECT COUNT(*) AS n FROM push_deliveries")?["n"] ?? -1
        return outbox + deliveries
    }

    /// How many rows of `table` have `user_id` = `userId`.
    func rowCount(_ table: String, userId: String) async throws -> Int {
        try await storage.database.row("SELECT COUNT(*) AS n FROM \(raw: table) WHERE user_id = \(userId)")?["n"] ?? -1
    }
}

extension TestClientProtocol {
    /// A seller with a class, a buyer who opened a room on it; returns both and the room id.
    func sellerBuyerRoom() async throws -> (seller: (token: String, id: String), buyer: (token: String, id: String), roomId: String) {
        let seller = try await signup(nickname: "선생님")
        let buyer = try await signup(nickname: "학생")
        let classId = try #require(try await createClass(token: seller.token)["id"] as? String)
        let room = try await send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer.token)
        return (seller, buyer, try #require(try room.jsonObject()["id"] as? String))
    }

    /// Registers a device.
    @discardableResult
    func registerDevice(_ token: String, platform: String = "ios", as bearer: String) async throws -> TestResponse {
        try await send(.put, "/v1/me/devices/\(token)", json: ["platform": platform, "appVersion": "3.1.0", "locale": "ko-KR"], token: bearer)
    }

    /// Sends a chat message over REST.
    @discardableResult
    func say(_ text: String, in roomId: String, as bearer: String) async throws -> TestResponse {
        try await send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": UUID().uuidString, "text": text], token: bearer)
    }
}

/// An APNs-looking device token (64 hex characters).
func apnsToken() -> String {
    (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined()
}
