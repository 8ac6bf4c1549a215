import ClassTodayCore
import ClassTodayPushFakes
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Logging
import Synchronization
import Testing
@testable import ClassTodayServer

/// Pushes end to end: chat messages stored through the app reach the fake APNs (HTTP/2 over TLS) and FCM servers,
/// which check the tokens, headers and payloads.
@Suite("Push delivery")
struct PushDeliveryTests {
    @Test("an offline member gets one push per message with the sender's nickname, the text and their unread count")
    func offlineMemberGetsPushes() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                let device = apnsToken()
                try await client.registerDevice(device, as: buyer.token)
                for (index, text) in ["안녕하세요", "수업 가능할까요?", String(repeating: "가", count: 150)].enumerated() {
                    try await client.say(text, in: roomId, as: seller.token)
                    #expect(await eventually { fakes.apns.received.count == index + 1 })
                }
                let pushes = fakes.apns.received
                #expect(pushes.map(\.badge) == [1, 2, 3])
                #expect(pushes.allSatisfy { $0.title == "선생님" && $0.deviceToken == device && $0.threadId == roomId && $0.collapseId == roomId })
                #expect(pushes.allSatisfy { $0.data["roomId"] == roomId && $0.data["kind"] == "message" })
                #expect(pushes.map(\.body).prefix(2) == ["안녕하세요", "수업 가능할까요?"])
                #expect(pushes[2].body == String(repeating: "가", count: 99) + "…")
                #expect(fakes.apns.refusals.isEmpty)
                // The sender has no device and gets no push for their own messages; nothing is left queued.
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                #expect(metrics.contains(#"push_sent_total{platform="ios"} 3"#))
            }
        }
    }

    @Test("an Android device gets its push through FCM with an exchanged access token, reused for the next push")
    func fcmDelivery() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { _, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice("fcm:APA91bH-token_1", platform: "android", as: buyer.token)
                try await client.say("첫 메시지", in: roomId, as: seller.token)
                #expect(await eventually { fakes.fcm.received.count == 1 })
                try await client.say("둘째 메시지", in: roomId, as: seller.token)
                #expect(await eventually { fakes.fcm.received.count == 2 })
                let push = try #require(fakes.fcm.received.first)
                #expect(push.title == "선생님" && push.body == "첫 메시지" && push.badge == 1)
                #expect(push.threadId == roomId && push.collapseId == roomId && push.data["roomId"] == roomId)
                #expect(fakes.fcm.tokensIssued == 1)
                #expect(fakes.fcm.refusals.isEmpty)
                #expect(fakes.apns.received.isEmpty)
            }
        }
    }

    @Test("a match step pushes its notice to the other member; an alert hit pushes the class's name")
    func matchAndAlertPushes() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { _, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                let sellerDevice = apnsToken()
                try await client.registerDevice(sellerDevice, as: seller.token)
                let proposal = try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: ["price": 20000], token: buyer.token)
                #expect(proposal.status == .created)
                #expect(await eventually { fakes.apns.received.count == 1 })
                let step = try #require(fakes.apns.received.first)
                #expect(step.deviceToken == sellerDevice && step.title == "학생" && step.body == "매칭을 제안했어요")
                #expect(step.data["kind"] == "match" && step.threadId == roomId)

                let watcher = try await client.signup(nickname: "알림받는사람")
                try await client.registerDevice("fcm:alert-watcher_1", platform: "android", as: watcher.token)
                let alert = try await client.send(.post, "/v1/alerts", json: ["lat": 37.4842, "lon": 126.9297, "radius": 2000], token: watcher.token)
                #expect(alert.status == .created)
                let listing = try await client.createClass(token: seller.token, ["name": "수학 과외 합니다"])
                #expect(await eventually { fakes.fcm.received.count == 1 })
                let hit = try #require(fakes.fcm.received.first)
                #expect(hit.title == "새 수업 알림" && hit.body.contains("수학 과외 합니다"))
                #expect(hit.data["kind"] == "alert" && hit.data["classId"] == listing["id"] as? String)
            }
        }
    }

    @Test("a member with a live socket gets no push; after it closes, they do")
    func onlineMemberGetsNoPush() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(.live) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                // The seller's socket hears when the buyer goes offline: no guess at how long the server takes.
                let sellerSocket = try await TestSocket.connect(port: try #require(client.port), token: seller.token)
                let socket = try await TestSocket.connect(port: try #require(client.port), token: buyer.token)
                _ = await socket.drain(for: .milliseconds(200))
                try await client.say("보이나요?", in: roomId, as: seller.token)
                _ = try await socket.next(type: "message")
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                try await Task.sleep(for: .milliseconds(200))
                #expect(fakes.apns.received.isEmpty)
                await socket.close()
                while try await sellerSocket.next(type: "presence")["online"] as? Bool != false {}
                try await client.say("이제는요?", in: roomId, as: seller.token)
                #expect(await eventually { fakes.apns.received.count == 1 })
                #expect(fakes.apns.received.first?.body == "이제는요?")
                await sellerSocket.close()
            }
        }
    }

    @Test("a muted room pushes nothing until it is unmuted")
    func mutedRoom() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: ["muted": true], token: buyer.token)
                try await client.say("조용히", in: roomId, as: seller.token)
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                try await Task.sleep(for: .milliseconds(200))
                #expect(fakes.apns.received.isEmpty)
                try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: ["muted": false], token: buyer.token)
                try await client.say("다시", in: roomId, as: seller.token)
                #expect(await eventually { fakes.apns.received.count == 1 })
                #expect(fakes.apns.received.first?.body == "다시")
            }
        }
    }

    @Test("a push queued before the recipient blocked the sender is not sent")
    func blockedSender() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(configure: { $0.push.deliveryEnabled = false }) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                try await client.say("차단 전에 보낸 메시지", in: roomId, as: seller.token)
                #expect(try await environment.rowCount("push_outbox", userId: buyer.id) == 1)
                #expect(try await client.send(.put, "/v1/users/\(seller.id)/block", token: buyer.token).status.code < 300)
                let service = Self.service(environment)
                await service.drain()
                await service.shutdown()
                #expect(try await environment.pendingPushes() == 0)
                #expect(fakes.apns.requests == 0)
            }
        }
    }

    @Test("a token APNs calls unregistered (410) or FCM calls UNREGISTERED (404) is deleted")
    func unregisteredTokensArePruned() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                let (ios, android) = (apnsToken(), "fcm:gone-token_1")
                fakes.apns.unregister(ios)
                fakes.fcm.unregister(android)
                try await client.registerDevice(ios, as: buyer.token)
                try await client.registerDevice(android, platform: "android", as: buyer.token)
                try await client.say("받으실 분?", in: roomId, as: seller.token)
                #expect(try await eventually { try await environment.rowCount("devices", userId: buyer.id) == 0 })
                #expect(try await environment.pendingPushes() == 0)
                #expect(fakes.apns.received.isEmpty && fakes.fcm.received.isEmpty)
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                #expect(metrics.contains(#"push_pruned_total{platform="ios"} 1"#))
                #expect(metrics.contains(#"push_pruned_total{platform="android"} 1"#))
            }
        }
    }

    @Test("after 429 and 500 the push is tried again and delivered once")
    func retriesThenSucceeds() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                fakes.apns.plan([.tooManyRequests(retryAfter: 0), .serverError])
                try await client.say("세 번째에 성공", in: roomId, as: seller.token)
                #expect(await eventually { fakes.apns.received.count == 1 })
                #expect(fakes.apns.requests == 3)
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                try await Task.sleep(for: .milliseconds(200))
                #expect(fakes.apns.received.count == 1)
            }
        }
    }

    @Test("the fake APNs refuses a provider token signed for another key id or team, and nothing is delivered")
    func wrongCredentialsAreRefused() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(configure: { $0.push.apns.teamId = "OTHERTEAM1" }) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                try await client.say("거절될 메시지", in: roomId, as: seller.token)
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                #expect(fakes.apns.received.isEmpty)
                #expect(fakes.apns.refusals.contains("InvalidProviderToken"))
            }
        }
    }

    @Test("a push failing more often than allowed is given up and counted")
    func givesUp() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(configure: { $0.push.maximumAttempts = 2 }) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                fakes.apns.plan([.serverError, .serverError, .serverError])
                try await client.say("실패할 메시지", in: roomId, as: seller.token)
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                #expect(fakes.apns.requests == 2 && fakes.apns.received.isEmpty)
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                #expect(metrics.contains(#"push_failed_total{platform="ios"} 1"#))
            }
        }
    }

    @Test("a claimed delivery whose node died is claimed again when its lease ends, not before")
    func leaseSurvivesACrash() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(configure: { $0.push.deliveryEnabled = false }) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                try await client.say("살아남는 메시지", in: roomId, as: seller.token)
                let queue = environment.pushQueue
                let now = Date()
                #expect(try await queue.expand(limit: 10, at: now, online: { _ in [] }) == 1)
                let first = try await queue.claim(limit: 10, at: now, lease: .seconds(60), online: { _ in [] })
                #expect(first.count == 1 && first.first?.attempts == 1)
                // The node "dies" here: nothing finishes the delivery.
                #expect(try await queue.claim(limit: 10, at: now.addingTimeInterval(30), lease: .seconds(60), online: { _ in [] }).isEmpty)
                let second = try await queue.claim(limit: 10, at: now.addingTimeInterval(61), lease: .seconds(60), online: { _ in [] })
                #expect(second.map(\.id) == first.map(\.id) && second.first?.attempts == 2)
                #expect(second.first?.content.body == "살아남는 메시지")
            }
        }
    }

    /// What the recipient does while the first try of a push waits for its retry.
    enum Withdrawal: String, CaseIterable, Sendable {
        case block, mute
    }

    @Test("a block or a mute made while a push waits for its retry stops it: the retry decides again", arguments: Withdrawal.allCases)
    func withdrawnBeforeRetry(_ withdrawal: Withdrawal) async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                fakes.apns.plan([.tooManyRequests(retryAfter: 2)])
                try await client.say("차단 직전에 보낸 메시지", in: roomId, as: seller.token)
                #expect(await eventually { fakes.apns.requests == 1 })
                switch withdrawal {
                case .block:
                    #expect(try await client.send(.put, "/v1/users/\(seller.id)/block", token: buyer.token).status.code < 300)
                case .mute:
                    #expect(try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: ["muted": true], token: buyer.token).status == .ok)
                }
                // The retry is due two seconds after the 429: the delivery is withdrawn then, not sent.
                #expect(try await eventually { try await environment.pendingPushes() == 0 })
                try await Task.sleep(for: .milliseconds(300))
                #expect(fakes.apns.requests == 1)
                #expect(fakes.apns.received.isEmpty)
            }
        }
    }

    @Test("each accepted push is deleted as its own send answers, not after the batch's slowest request")
    func deletedAsAccepted() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(configure: { $0.push.deliveryEnabled = false }) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                try await client.registerDevice("fcm:slow-device_1", platform: "android", as: buyer.token)
                try await client.say("빠른 기기와 느린 기기", in: roomId, as: seller.token)
                let slow = HeldSender()
                let service = PushDeliveryService(
                    queue: environment.pushQueue, senders: [.ios: HeldSender(released: true), .android: slow], client: nil,
                    settings: environment.configuration.push, online: { _ in [] }, metrics: environment.metrics,
                    logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
                let draining = Task { await service.drain() }
                #expect(await eventually { slow.waiting })
                #expect(try await eventually { try await environment.pendingPushes() == 1 },
                        "the accepted iOS push is gone while the Android one is still being sent")
                slow.release()
                await draining.value
                #expect(try await environment.pendingPushes() == 0)
            }
        }
    }

    /// A delivery service over `environment`, to drain by hand.
    static func service(_ environment: ServerEnvironment) -> PushDeliveryService {
        PushDeliveryService(queue: environment.pushQueue, credentials: environment.pushCredentials, settings: environment.configuration.push,
                            online: { _ in [] }, metrics: environment.metrics, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }
}

/// Two nodes on one PostgreSQL database, each running its delivery service: every push goes out exactly once.
@Suite("Push across two nodes", .postgresOnly)
struct TwoNodePushTests {
    @Test("two nodes deliver each push exactly once")
    func exactlyOnce() async throws {
        try await PushFakes.run { fakes in
            try await TestServer.withTwoNodes(configure: { _, configuration in fakes.configure(&configuration) }) { a, b, _ in
                let (seller, buyer, roomId) = try await a.sellerBuyerRoom()
                try await b.registerDevice(apnsToken(), as: buyer.token)
                try await b.registerDevice("fcm:two-nodes_1", platform: "android", as: buyer.token)
                for index in 0..<30 {
                    try await (index % 2 == 0 ? a : b).say("메시지 \(index)", in: roomId, as: seller.token)
                }
                #expect(await eventually(timeout: .seconds(10)) { fakes.apns.received.count >= 30 && fakes.fcm.received.count >= 30 })
                try await Task.sleep(for: .milliseconds(500))
                for pushes in [fakes.apns.received, fakes.fcm.received] {
                    #expect(pushes.count == 30)
                    #expect(Set(pushes.compactMap { $0.data["messageId"] }).count == 30)
                }
            }
        }
    }
}

/// A sender that accepts every push once released: until then its sends wait.
final class HeldSender: PushSender {
    private let gate = Mutex<(released: Bool, waiting: Bool)>((false, false))

    /// A sender released from the start (`released`) or held until ``release()``.
    init(released: Bool = false) {
        gate.withLock { $0.released = released }
    }

    /// Whether a send is waiting for the release.
    var waiting: Bool { gate.withLock { $0.waiting } }

    /// Lets every send through.
    func release() {
        gate.withLock { $0.released = true }
    }

    func send(_ content: PushContent, to token: String) async -> PushOutcome {
        while !gate.withLock({ state in
            state.waiting = !state.released
            return state.released
        }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return .sent
    }
}
