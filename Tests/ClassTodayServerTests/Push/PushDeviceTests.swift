import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// `PUT/DELETE /v1/me/devices/{token}`, `GET /v1/me/devices`, room mutes, and what removes devices.
@Suite("Push devices")
struct PushDeviceTests {
    @Test("registering is idempotent (201, then 200), lists the device, and deleting removes it")
    func registerListDelete() async throws {
        try await TestServer.withRouter { client in
            let user = try await client.signup()
            let token = apnsToken()
            #expect(try await client.registerDevice(token, as: user.token).status == .created)
            let again = try await client.registerDevice(token, as: user.token)
            #expect(again.status == .ok)
            #expect(try again.jsonObject()["platform"] as? String == "ios")
            try await client.registerDevice("fcm-token_1:APA91b-abc.def", platform: "android", as: user.token)
            let list = try await client.send(.get, "/v1/me/devices", token: user.token)
            let items = try #require(try list.jsonObject()["items"] as? [[String: Any]])
            #expect(Set(items.compactMap { $0["token"] as? String }) == [token, "fcm-token_1:APA91b-abc.def"])
            #expect(items.allSatisfy { $0["appVersion"] as? String == "3.1.0" && $0["locale"] as? String == "ko-KR" })
            // A device registered without a version or locale has both, as null.
            let bare = try await client.send(.put, "/v1/me/devices/\(apnsToken())", json: ["platform": "ios"], token: user.token)
            #expect(bare.status == .created)
            let fields = try bare.jsonObject()
            #expect(fields["appVersion"] is NSNull && fields["locale"] is NSNull)

            let other = try await client.signup()
            #expect(try await client.send(.delete, "/v1/me/devices/\(token)", token: other.token).status == .notFound)
            #expect(try await client.send(.delete, "/v1/me/devices/\(token)", token: user.token).status == .noContent)
            #expect(try await client.send(.delete, "/v1/me/devices/\(token)", token: user.token).status == .notFound)
            #expect(try await client.send(.get, "/v1/me/devices").status == .unauthorized)
        }
    }

    @Test("a user keeps the devices registered last, up to the cap; a token registered by another user moves to them")
    func capAndMove() async throws {
        try await TestServer.withRouter { client in
            let user = try await client.signup()
            var tokens: [String] = []
            for _ in 0...DeviceRules.maximumPerUser {
                tokens.append(apnsToken())
                #expect(try await client.registerDevice(tokens.last!, as: user.token).status == .created)
                try await Task.sleep(for: .milliseconds(3))
            }
            func listed(_ bearer: String) async throws -> Set<String> {
                let items = try #require(try await client.send(.get, "/v1/me/devices", token: bearer).jsonObject()["items"] as? [[String: Any]])
                return Set(items.compactMap { $0["token"] as? String })
            }
            #expect(try await listed(user.token) == Set(tokens.dropFirst()), "the oldest registration makes room")

            // A phone changing hands (signed out, another account signed in) registers the same token again.
            let other = try await client.signup()
            #expect(try await client.registerDevice(tokens.last!, as: other.token).status == .created)
            #expect(try await listed(other.token) == [tokens.last!])
            #expect(try await listed(user.token) == Set(tokens.dropFirst().dropLast()))
        }
    }

    @Test("bad registrations are 422 problems naming the field")
    func validation() async throws {
        try await TestServer.withRouter { client in
            let user = try await client.signup()
            let badPlatform = try await client.send(.put, "/v1/me/devices/\(apnsToken())", json: ["platform": "windows"], token: user.token)
            #expect(badPlatform.status == .unprocessableContent)
            #expect(try badPlatform.problemFields() == ["platform"])
            let missing = try await client.send(.put, "/v1/me/devices/\(apnsToken())", json: [:], token: user.token)
            #expect(try missing.problemFields() == ["platform"])
            let badToken = try await client.send(.put, "/v1/me/devices/bad%20token%21", json: ["platform": "ios"], token: user.token)
            #expect(badToken.status == .unprocessableContent)
            #expect(try badToken.problemFields() == ["token"])
            let longToken = try await client.send(.put, "/v1/me/devices/\(String(repeating: "a", count: 513))", json: ["platform": "ios"], token: user.token)
            #expect(try longToken.problemFields() == ["token"])
            let badLocale = try await client.send(.put, "/v1/me/devices/\(apnsToken())", json: ["platform": "ios", "locale": "ko KR<"], token: user.token)
            #expect(try badLocale.problemFields() == ["locale"])
            let wrongType = try await client.send(.put, "/v1/me/devices/\(apnsToken())", json: ["platform": 1], token: user.token)
            #expect(wrongType.status == .badRequest)
        }
    }

    @Test("signing out of a session removes the device it registered, and only that one")
    func logoutRemovesSessionDevice() async throws {
        try await TestServer.withRouter { client in
            let user = try await client.signup(email: "phone-owner@example.com")
            let login = try await client.send(.post, "/v1/auth/login", json: ["email": "phone-owner@example.com", "password": "correct horse"])
            let second = try #require(try login.jsonObject()["token"] as? String)
            let (first, kept) = (apnsToken(), apnsToken())
            try await client.registerDevice(first, as: user.token)
            try await client.registerDevice(kept, as: second)
            #expect(try await client.send(.post, "/v1/auth/logout", token: user.token).status == .noContent)
            let list = try await client.send(.get, "/v1/me/devices", token: second)
            let tokens = try #require(try list.jsonObject()["items"] as? [[String: Any]]).compactMap { $0["token"] as? String }
            #expect(tokens == [kept])
        }
    }

    @Test("the clean-up removes devices whose session has expired entirely, and keeps the others")
    func expiredSessionDevices() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let user = try await client.signup()
            try await client.registerDevice(apnsToken(), as: user.token)
            try await environment.cleanUp(now: Date())
            #expect(try await environment.rowCount("devices", userId: user.id) == 1)
            try await environment.cleanUp(now: Date().addingTimeInterval(400 * 24 * 3600))
            #expect(try await environment.rowCount("devices", userId: user.id) == 0)
        }
    }

    @Test("a member mutes and unmutes a room; rooms show it; others get 404")
    func mute() async throws {
        try await TestServer.withRouter { client in
            let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
            let muted = try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: ["muted": true], token: buyer.token)
            #expect(muted.status == .ok)
            #expect(try muted.jsonObject()["muted"] as? Bool == true)
            let rooms = try #require(try await client.send(.get, "/v1/chat/rooms", token: buyer.token).jsonObject()["items"] as? [[String: Any]])
            #expect(rooms.first?["muted"] as? Bool == true)
            let sellerRooms = try #require(try await client.send(.get, "/v1/chat/rooms", token: seller.token).jsonObject()["items"] as? [[String: Any]])
            #expect(sellerRooms.first?["muted"] as? Bool == false)
            try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: ["muted": false], token: buyer.token)
            let after = try #require(try await client.send(.get, "/v1/chat/rooms", token: buyer.token).jsonObject()["items"] as? [[String: Any]])
            #expect(after.first?["muted"] as? Bool == false)

            let stranger = try await client.signup()
            #expect(try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: ["muted": true], token: stranger.token).status == .notFound)
            #expect(try await client.send(.put, "/v1/chat/rooms/01ARZ3NDEKTSV4RRFFQ69G5FAV/mute", json: ["muted": true], token: buyer.token).status == .notFound)
            let missing = try await client.send(.put, "/v1/chat/rooms/\(roomId)/mute", json: [:], token: buyer.token)
            #expect(try missing.problemFields() == ["muted"])
        }
    }

    @Test("deleting the account deletes its devices and queued pushes")
    func accountDeletion() async throws {
        try await PushFakes.run { fakes in
            try await fakes.withApp(configure: { $0.push.deliveryEnabled = false }) { environment, client in
                let (seller, buyer, roomId) = try await client.sellerBuyerRoom()
                try await client.registerDevice(apnsToken(), as: buyer.token)
                try await client.say("안녕하세요", in: roomId, as: seller.token)
                #expect(try await environment.rowCount("push_outbox", userId: buyer.id) == 1)
                let deleted = try await client.send(.delete, "/v1/me", json: ["password": "correct horse"], token: buyer.token)
                #expect(deleted.status == .noContent)
                for table in ["devices", "push_outbox", "push_deliveries", "chat_room_mutes"] {
                    #expect(try await environment.rowCount(table, userId: buyer.id) == 0, "\(table)")
                }
            }
        }
    }
}
