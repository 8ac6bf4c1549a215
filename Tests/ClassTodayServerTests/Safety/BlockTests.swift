import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// Blocking works in both directions: once A blocks B, neither sees the other's listings anywhere, neither can open a
/// room with or write to the other (old rooms stay readable), pending proposals are declined, and alerts stay quiet.
@Suite("Blocks")
struct BlockTests {
    /// The ids of `path`'s items as `token` sees them.
    static func ids(_ client: any TestClientProtocol, _ path: String, token: String) async throws -> [String] {
        let page = try await client.send(.get, path, token: token).jsonObject()
        return (page["items"] as? [[String: Any]] ?? []).compactMap { ($0["class"] as? [String: Any] ?? $0)["id"] as? String }
    }

    @Test("block and unblock are idempotent, listed newest first; yourself is a 422, an unknown user a 404")
    func blockList() async throws {
        try await TestServer.withRouter { client in
            let alice = try await client.signup(nickname: "앨리스")
            let bob = try await client.signup(nickname: "밥")
            let carol = try await client.signup(nickname: "캐럴")
            for _ in 0..<2 {
                #expect(try await client.send(.put, "/v1/users/\(bob.id)/block", token: alice.token).status == .noContent)
            }
            #expect(try await client.send(.put, "/v1/users/\(carol.id)/block", token: alice.token).status == .noContent)
            let list = try await client.send(.get, "/v1/me/blocks", token: alice.token).jsonObject()
            let users = (list["items"] as? [[String: Any]] ?? []).compactMap { ($0["user"] as? [String: Any])?["id"] as? String }
            #expect(users == [carol.id, bob.id])
            #expect((list["items"] as? [[String: Any]])?.first?["blockedAt"] is String)
            let first = try await client.send(.get, "/v1/me/blocks?limit=1", token: alice.token).jsonObject()
            let cursor = try #require(first["nextCursor"] as? String)
            let second = try await client.send(.get, "/v1/me/blocks?limit=1&cursor=\(cursor)", token: alice.token).jsonObject()
            #expect(((second["items"] as? [[String: Any]])?.first?["user"] as? [String: Any])?["id"] as? String == bob.id)

            let own = try await client.send(.put, "/v1/users/\(alice.id)/block", token: alice.token)
            #expect(own.status == .unprocessableContent)
            #expect(try own.problemFields() == ["id"])
            #expect(try await client.send(.put, "/v1/users/01M00000000000000000000000/block", token: alice.token).status == .notFound)
            #expect(try await client.send(.delete, "/v1/users/not-an-id/block", token: alice.token).status == .notFound)
            #expect(try await client.send(.put, "/v1/users/\(bob.id)/block").status == .unauthorized)

            for _ in 0..<2 {
                #expect(try await client.send(.delete, "/v1/users/\(bob.id)/block", token: alice.token).status == .noContent)
            }
            let after = try await client.send(.get, "/v1/me/blocks", token: alice.token).jsonObject()
            #expect((after["items"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("neither sees the other's listings in search, detail, lists, favourites or recommendations, until unblocked")
    func listingsHiddenBothWays() async throws {
        try await TestServer.withRouter { client in
            let alice = try await client.signup(nickname: "앨리스")
            let bob = try await client.signup(nickname: "밥")
            let carol = try await client.signup(nickname: "캐럴")
            let aliceClass = try #require(try await client.createClass(token: alice.token)["id"] as? String)
            let bobClass = try #require(try await client.createClass(token: bob.token)["id"] as? String)
            let wanted = try #require(try await client.createClass(token: alice.token, ["type": "buy", "name": "기타 배우고 싶어요"])["id"] as? String)
            #expect(try await client.send(.put, "/v1/classes/\(bobClass)/favorite", token: alice.token).status == .noContent)
            #expect(try await client.send(.put, "/v1/users/\(bob.id)/block", token: alice.token).status == .noContent)

            let searches = ["/v1/classes?q=%EA%B8%B0%ED%83%80", "/v1/classes?lat=37.4842&lon=126.9297&radius=5000",
                            "/v1/classes?bbox=126,37,127,38", "/v1/classes?sort=recent"]
            for (viewer, hidden, writer) in [(alice, bobClass, bob), (bob, aliceClass, alice)] {
                for path in searches {
                    #expect(!(try await Self.ids(client, path, token: viewer.token)).contains(hidden), "\(path)")
                }
                #expect(try await client.send(.get, "/v1/classes/\(hidden)", token: viewer.token).status == .notFound)
                #expect(try await Self.ids(client, "/v1/users/\(writer.id)/classes", token: viewer.token).isEmpty)
            }
            #expect(try await Self.ids(client, "/v1/me/favorites", token: alice.token).isEmpty)
            #expect(!(try await Self.ids(client, "/v1/classes/\(bobClass)/recommendations", token: alice.token)).contains(wanted))
            // Others still see both; the writers see their own.
            for path in searches {
                let seen = try await Self.ids(client, path, token: carol.token)
                #expect(seen.contains(aliceClass) && seen.contains(bobClass), "\(path)")
            }
            #expect(try await client.send(.get, "/v1/classes/\(bobClass)", token: bob.token).status == .ok)

            #expect(try await client.send(.delete, "/v1/users/\(bob.id)/block", token: alice.token).status == .noContent)
            #expect(try await client.send(.get, "/v1/classes/\(bobClass)", token: alice.token).status == .ok)
            #expect(try await Self.ids(client, searches[0], token: alice.token).contains(bobClass))
            #expect(try await Self.ids(client, "/v1/me/favorites", token: alice.token) == [bobClass])
        }
    }

    @Test("no new room or message either way (403), the old room stays readable, and a pending proposal is declined")
    func chatAndMatches() async throws {
        try await TestServer.withRouter { client in
            let seller = try await client.signup(nickname: "선생님")
            let buyer = try await client.signup(nickname: "학생")
            let (classId, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            let first = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": "a", "text": "안녕하세요"], token: buyer.token)
            #expect(first.status == .created)
            let proposal = try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: [:], token: buyer.token)
            let matchId = try #require(try proposal.jsonObject()["id"] as? String)
            // A second pending proposal in the same room: both are declined, their notices take consecutive seqs.
            let second = try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: ["price": 15000], token: seller.token)
            let secondId = try #require(try second.jsonObject()["id"] as? String)

            #expect(try await client.send(.put, "/v1/users/\(buyer.id)/block", token: seller.token).status == .noContent)

            let match = try await client.send(.get, "/v1/me/matches", token: seller.token).jsonObject()
            for id in [matchId, secondId] {
                let status = (match["items"] as? [[String: Any]])?.first { $0["id"] as? String == id }?["status"] as? String
                #expect(status == "declined")
            }
            for token in [seller.token, buyer.token] {
                let sent = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": "b", "text": "여보세요"], token: token)
                #expect(sent.status == .forbidden)
                #expect(try sent.problem()["detail"] as? String == "one of you blocked the other")
                let history = try await client.send(.get, "/v1/chat/rooms/\(roomId)/messages", token: token)
                #expect(history.status == .ok)
                let texts = (try history.jsonObject()["items"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
                #expect(texts.contains("안녕하세요"))
                #expect(texts.filter { $0 == Match.systemMessage(for: .declined) }.count == 2)
            }
            #expect(try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: [:], token: buyer.token).status == .forbidden)
            // A second class of the seller: the buyer cannot open a room on it.
            let other = try #require(try await client.createClass(token: seller.token, ["name": "우쿨렐레"])["id"] as? String)
            #expect(try await client.send(.post, "/v1/chat/rooms", json: ["classId": other], token: buyer.token).status == .forbidden)
            _ = classId

            #expect(try await client.send(.delete, "/v1/users/\(buyer.id)/block", token: seller.token).status == .noContent)
            #expect(try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": "c", "text": "다시"], token: buyer.token).status == .created)
        }
    }

    @Test("an alert never fires for a listing of a user its owner blocked, or who blocked its owner")
    func alertsQuiet() async throws {
        try await TestServer.withRouter { client in
            let writer = try await client.signup(nickname: "선생님")
            let blocked = try await client.signup(nickname: "차단")
            let blocker = try await client.signup(nickname: "차단한")
            let control = try await client.signup(nickname: "대조")
            for watcher in [blocked, blocker, control] {
                let alert = try await client.send(.post, "/v1/alerts", json: ["lat": 37.4842, "lon": 126.9297, "radius": 2000, "q": "기타"],
                                                  token: watcher.token)
                #expect(alert.status == .created)
            }
            #expect(try await client.send(.put, "/v1/users/\(blocked.id)/block", token: writer.token).status == .noContent)
            #expect(try await client.send(.put, "/v1/users/\(writer.id)/block", token: blocker.token).status == .noContent)
            _ = try await client.createClass(token: writer.token)
            var controlSaw = 0
            for _ in 0..<50 where controlSaw == 0 {
                controlSaw = (try await client.send(.get, "/v1/me/notifications", token: control.token).jsonObject()["items"] as? [Any])?.count ?? 0
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(controlSaw == 1, "the fan-out ran")
            for watcher in [blocked, blocker] {
                let page = try await client.send(.get, "/v1/me/notifications", token: watcher.token).jsonObject()
                #expect((page["items"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test("on a live socket a block takes effect at once: the next send is an error frame, nothing is delivered")
    func liveSockets() async throws {
        try await ChatTests.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "before", "text": "안녕하세요"])
            _ = try await seller.next(type: "message")
            #expect(try await scene.client.send(.put, "/v1/users/\(scene.buyer.id)/block", token: scene.seller.token).status == .noContent)
            for (socket, clientId) in [(buyer, "after-buyer"), (seller, "after-seller")] {
                socket.send(["type": "send", "roomId": scene.roomId, "clientId": clientId, "text": "여보세요"])
                let error = try await socket.next(type: "error")
                #expect(error["code"] as? String == "forbidden")
                #expect(error["clientId"] as? String == clientId)
            }
            for socket in [buyer, seller] {
                let delivered = await socket.drain().filter { $0["type"] as? String == "message" }
                #expect(!delivered.contains { ($0["message"] as? [String: Any] ?? $0)["text"] as? String == "여보세요" })
                await socket.close()
            }
        }
    }
}
