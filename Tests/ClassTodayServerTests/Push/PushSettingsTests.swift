import ClassTodayCore
import Foundation
import Testing
@testable import ClassTodayServer

/// Push configuration, key loading and the small rules of delivery.
@Suite("Push settings")
struct PushSettingsTests {
    @Test("every push setting comes from the environment variable docs/configuration.md lists")
    func fromEnvironment() async throws {
        let configuration = try await AppConfiguration.resolve(flags: [:], environment: [
            "CLASSTODAY_PUSH_APNS_KEY_PATH": "/keys/apns.p8", "CLASSTODAY_PUSH_APNS_KEY_ID": "KEY1", "CLASSTODAY_PUSH_APNS_TEAM_ID": "TEAM1",
            "CLASSTODAY_PUSH_APNS_TOPIC": "app.classtoday", "CLASSTODAY_PUSH_APNS_SANDBOX": "true",
            "CLASSTODAY_PUSH_FCM_SERVICE_ACCOUNT_PATH": "/keys/fcm.json", "CLASSTODAY_PUSH_FCM_ENDPOINT": "https://fcm.example.com",
            "CLASSTODAY_PUSH_TRUSTED_CA_PATH": "/keys/ca.pem", "CLASSTODAY_PUSH_ENABLED": "false", "CLASSTODAY_PUSH_MAX_ATTEMPTS": "3",
            "CLASSTODAY_PUSH_RETRY_BASE_MILLISECONDS": "500", "CLASSTODAY_PUSH_RETRY_MAX_SECONDS": "60",
            "CLASSTODAY_PUSH_POLL_MILLISECONDS": "250", "CLASSTODAY_PUSH_LEASE_SECONDS": "30", "CLASSTODAY_PUSH_TIMEOUT_SECONDS": "5",
        ], configFile: nil)
        let push = configuration.push
        #expect(push.apns.keyPath == "/keys/apns.p8" && push.apns.keyId == "KEY1" && push.apns.teamId == "TEAM1")
        #expect(push.apns.topic == "app.classtoday" && push.apns.resolvedEndpoint == APNsSettings.sandboxEndpoint)
        #expect(push.fcm.serviceAccountPath == "/keys/fcm.json" && push.fcm.endpoint == "https://fcm.example.com")
        #expect(push.trustedCAPath == "/keys/ca.pem" && !push.deliveryEnabled && push.maximumAttempts == 3)
        #expect(push.retryBase == .milliseconds(500) && push.retryMaximum == .seconds(60) && push.pollInterval == .milliseconds(250))
        #expect(push.lease == .seconds(30) && push.requestTimeout == .seconds(5))
        #expect(AppConfiguration().push.apns.resolvedEndpoint == "https://api.push.apple.com")
    }

    @Test("a key without its id, or APNs over plain HTTP, is refused naming the key")
    func invalid() async throws {
        func failingKey(_ environment: [String: String]) async -> String? {
            do {
                _ = try await AppConfiguration.resolve(flags: [:], environment: environment, configFile: nil)
                return nil
            } catch let error as ConfigurationError {
                guard case .invalid(let key, _) = error else { return nil }
                return key
            } catch {
                return nil
            }
        }
        let key = ["CLASSTODAY_PUSH_APNS_KEY_PATH": "/k.p8", "CLASSTODAY_PUSH_APNS_TEAM_ID": "T", "CLASSTODAY_PUSH_APNS_TOPIC": "app"]
        #expect(await failingKey(key) == "push.apns.keyId")
        #expect(await failingKey(key.merging(["CLASSTODAY_PUSH_APNS_KEY_ID": "K", "CLASSTODAY_PUSH_APNS_ENDPOINT": "http://127.0.0.1:1"]) { $1 })
            == "push.apns.endpoint")
        #expect(await failingKey(["CLASSTODAY_PUSH_MAX_ATTEMPTS": "0"]) == "push.maxAttempts")
    }

    @Test("a key file that cannot be read or parsed stops the server, naming the setting and not the contents")
    func unreadableKeys() throws {
        var settings = PushSettings()
        settings.apns.keyPath = "/nonexistent/AuthKey.p8"
        #expect(throws: ConfigurationError.self) { try PushCredentials.load(settings) }
        settings = PushSettings()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json").path
        try "{\"client_email\": \"a@b\", \"private_key\": \"not a key\", \"token_uri\": \"https://x\", \"project_id\": \"p\"}"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        settings.fcm.serviceAccountPath = path
        do {
            _ = try PushCredentials.load(settings)
            Issue.record("a bad service account was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("push.fcm.serviceAccountPath") && !error.description.contains("not a key"))
        }
    }

    @Test("backoff doubles from the base up to the maximum, and waits at least Retry-After")
    func backoff() {
        let backoff = PushBackoff(base: 2, maximum: 60)
        #expect((1...7).map { backoff.delay(afterAttempt: $0, retryAfter: nil) } == [2, 4, 8, 16, 32, 60, 60])
        #expect(backoff.delay(afterAttempt: 1, retryAfter: 30) == 30)
        #expect(backoff.delay(afterAttempt: 5, retryAfter: 3) == 32)
    }

    @Test("a body is cut to 100 characters without splitting a character")
    func cut() {
        #expect(PushText.cut("  짧은 글  ") == "짧은 글")
        let long = String(repeating: "👍🏽", count: 120)
        #expect(PushText.cut(long).count == 100 && PushText.cut(long).hasSuffix("…"))
        #expect(PushText.cut(String(repeating: "a", count: 100)).count == 100)
    }

    @Test("APNs and FCM payloads carry the alert, badge, sound, thread and custom keys")
    func payloads() throws {
        let content = PushContent(kind: .message, title: "선생님", body: "안녕", badge: 4, threadId: "room1", collapseId: "room1",
                                  data: ["kind": "message", "roomId": "room1", "messageId": "m1"])
        let apns = try #require(try JSONSerialization.jsonObject(with: Data(APNsClient.payload(content))) as? [String: Any])
        let aps = try #require(apns["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: String]) == ["title": "선생님", "body": "안녕"])
        #expect(aps["badge"] as? Int == 4 && aps["sound"] as? String == "default" && aps["thread-id"] as? String == "room1")
        #expect(apns["roomId"] as? String == "room1" && apns["messageId"] as? String == "m1")
        let fcm = try #require(try JSONSerialization.jsonObject(with: Data(FCMClient.payload(content, token: "t1"))) as? [String: Any])
        let message = try #require(fcm["message"] as? [String: Any])
        #expect(message["token"] as? String == "t1")
        let android = try #require(message["android"] as? [String: Any])
        #expect(android["collapse_key"] as? String == "room1")
        #expect((android["notification"] as? [String: Any])?["tag"] as? String == "room1")
        #expect((message["data"] as? [String: String])?["badge"] == "4")
    }
}
