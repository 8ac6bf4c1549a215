import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

@Suite("Matching over HTTP")
struct MatchingTests {
    /// A seller's class (capacity `capacity`) and `buyers` buyers, each with a room.
    struct Setup {
        let seller: (token: String, id: String)
        let buyers: [(token: String, id: String, roomId: String)]
        let classId: String
    }

    static func setUp(_ client: any TestClientProtocol, capacity: Int = 1, buyers count: Int = 1) async throws -> Setup {
        let seller = try await client.signup(nickname: "선생님")
        let classId = try #require(try await client.createClass(token: seller.token, ["capacity": capacity])["id"] as? String)
        var buyers: [(String, String, String)] = []
        for _ in 0..<count {
            let buyer = try await client.signup(nickname: "학생")
            let room = try await client.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer.token)
            buyers.append((buyer.token, buyer.id, try room.decoded(as: RoomResponse.self).id))
        }
        return Setup(seller: seller, buyers: buyers, classId: classId)
    }

    static func propose(_ client: any TestClientProtocol, roomId: String, token: String, _ terms: [String: Any] = [:]) async throws -> String {
        let response = try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: terms, token: token)
        #expect(response.status == .created)
        return try response.decoded(as: MatchResponse.self).id
    }

    /// The class's status as anyone sees it.
    static func classStatus(_ client: any TestClientProtocol, _ classId: String) async throws -> ClassStatus {
        try await client.send(.get, "/v1/classes/\(classId)").decoded(as: ClassResponse.self).status
    }

    /// The action's answer: the match, after checking it is a 200.
    static func act(_ client: any TestClientProtocol, _ action: String, matchId: String, token: String) async throws -> MatchResponse {
        let response = try await client.send(.post, "/v1/matches/\(matchId)/\(action)", token: token)
        #expect(response.status == .ok, "\(action)")
        return try response.decoded()
    }

    @Test("propose → accept → complete, with terms from the class and a system message at each step")
    func lifecycle() async throws {
        try await TestServer.withRouter { client in
            let setup = try await Self.setUp(client)
            let buyer = setup.buyers[0]
            let proposed = try await client.send(.post, "/v1/chat/rooms/\(buyer.roomId)/matches", json: ["price": 18000], token: buyer.token)
            #expect(proposed.status == .created)
            let match = try proposed.decoded(as: MatchResponse.self)
            #expect(match.status == .proposed)
            #expect(match.proposedBy == buyer.id)
            #expect(match.sellerId == setup.seller.id && match.buyerId == buyer.id && match.roomId == buyer.roomId)
            #expect(match.classId == setup.classId)
            #expect(match.price == 18000)
            #expect(match.time == "10:00-12:00", "absent terms come from the class")
            #expect(match.days == [.sat, .sun] && match.priceUnit == .perHour)

            #expect(try await Self.act(client, "accept", matchId: match.id, token: setup.seller.token).status == .accepted)
            #expect(try await Self.classStatus(client, setup.classId) == .matched, "capacity 1 is full")
            #expect(try await Self.act(client, "complete", matchId: match.id, token: buyer.token).status == .completed)

            let history = try await client.send(.get, "/v1/chat/rooms/\(buyer.roomId)/messages", token: buyer.token)
            let messages = try history.decoded(as: TestPage<MessageResponse>.self).items
            #expect(messages.map(\.kind) == [.system, .system, .system])
            #expect(messages.map(\.seq) == [3, 2, 1], "newest first")
            #expect(messages.last?.text == "매칭을 제안했어요")

            let mine = try await client.send(.get, "/v1/me/matches?role=buyer", token: buyer.token).decoded(as: TestPage<MatchResponse>.self)
            #expect(mine.items.map(\.id) == [match.id] && mine.items.first?.status == .completed)
            let asSeller = try await client.send(.get, "/v1/me/matches?role=seller", token: buyer.token).decoded(as: TestPage<MatchResponse>.self)
            #expect(asSeller.items.isEmpty)
            #expect(try await client.send(.get, "/v1/me/matches?role=teacher", token: buyer.token).problemFields() == ["role"])
        }
    }

    @Test("illegal transitions are 409, outsiders 403, missing matches 404")
    func illegalTransitions() async throws {
        try await TestServer.withRouter { client in
            let setup = try await Self.setUp(client)
            let buyer = setup.buyers[0]
            let outsider = try await client.signup()
            let id = try await Self.propose(client, roomId: buyer.roomId, token: buyer.token)
            #expect(try await client.send(.post, "/v1/matches/\(id)/accept", token: buyer.token).status == .conflict, "the proposer cannot accept")
            #expect(try await client.send(.post, "/v1/matches/\(id)/complete", token: setup.seller.token).status == .conflict, "not accepted yet")
            #expect(try await client.send(.post, "/v1/matches/\(id)/accept", token: outsider.token).status == .forbidden)
            #expect(try await client.send(.post, "/v1/matches/01ZZZZZZZZZZZZZZZZZZZZZZZZ/accept", token: buyer.token).status == .notFound)
            #expect(try await client.send(.post, "/v1/chat/rooms/\(buyer.roomId)/matches", json: [:], token: outsider.token).status == .forbidden)
            #expect(try await Self.act(client, "decline", matchId: id, token: setup.seller.token).status == .declined)
            for action in ["accept", "decline", "cancel", "complete"] {
                #expect(try await client.send(.post, "/v1/matches/\(id)/\(action)", token: setup.seller.token).status == .conflict, "\(action) after decline")
            }
            let invalid = try await client.send(.post, "/v1/chat/rooms/\(buyer.roomId)/matches", json: ["price": -5, "time": "later"], token: buyer.token)
            #expect(try invalid.problemFields().sorted() == ["price", "time"])
        }
    }

    @Test("seats: the class is matched at capacity, a cancel reopens it, a full class refuses proposals")
    func seats() async throws {
        try await TestServer.withRouter { client in
            let setup = try await Self.setUp(client, capacity: 2, buyers: 3)
            var ids: [String] = []
            for buyer in setup.buyers {
                ids.append(try await Self.propose(client, roomId: buyer.roomId, token: buyer.token))
            }
            #expect(try await client.send(.post, "/v1/matches/\(ids[0])/accept", token: setup.seller.token).status == .ok)
            #expect(try await Self.classStatus(client, setup.classId) == .open)
            #expect(try await client.send(.post, "/v1/matches/\(ids[1])/accept", token: setup.seller.token).status == .ok)
            #expect(try await Self.classStatus(client, setup.classId) == .matched)
            #expect(try await client.send(.post, "/v1/matches/\(ids[2])/accept", token: setup.seller.token).status == .conflict, "no seat left")
            #expect(try await client.send(.post, "/v1/chat/rooms/\(setup.buyers[2].roomId)/matches", json: [:], token: setup.buyers[2].token).status == .conflict)
            // The default search shows open classes only.
            let openClasses = try await client.send(.get, "/v1/classes").decoded(as: TestPage<ClassResponse>.self)
            #expect(openClasses.items.isEmpty)
            #expect(try await Self.act(client, "cancel", matchId: ids[0], token: setup.buyers[0].token).status == .cancelled)
            #expect(try await Self.classStatus(client, setup.classId) == .open)
            #expect(try await client.send(.post, "/v1/matches/\(ids[2])/accept", token: setup.seller.token).status == .ok)
        }
    }

    @Test("two members accepting the last seat at the same moment: exactly one succeeds")
    func lastSeatRace() async throws {
        try await TestServer.withRouter { client in
            for _ in 0..<5 {
                let setup = try await Self.setUp(client, capacity: 1, buyers: 2)
                // The seller proposes to each buyer; both buyers accept at the same moment.
                var ids: [String] = []
                for buyer in setup.buyers {
                    ids.append(try await Self.propose(client, roomId: buyer.roomId, token: setup.seller.token))
                }
                let (firstId, secondId) = (ids[0], ids[1])
                async let first = client.send(.post, "/v1/matches/\(firstId)/accept", token: setup.buyers[0].token)
                async let second = client.send(.post, "/v1/matches/\(secondId)/accept", token: setup.buyers[1].token)
                let statuses = [try await first.status, try await second.status]
                #expect(statuses.filter { $0 == .ok }.count == 1, "\(statuses)")
                #expect(statuses.filter { $0 == .conflict }.count == 1, "\(statuses)")
            }
        }
    }

    @Test("reviews: only after completion, once per member, by members, with a valid grade; ratings update")
    func reviews() async throws {
        try await TestServer.withRouter { client in
            let setup = try await Self.setUp(client)
            let buyer = setup.buyers[0]
            let outsider = try await client.signup()
            let id = try await Self.propose(client, roomId: buyer.roomId, token: buyer.token)
            #expect(try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": 5], token: buyer.token).status == .conflict, "not completed")
            _ = try await client.send(.post, "/v1/matches/\(id)/accept", token: setup.seller.token)
            _ = try await client.send(.post, "/v1/matches/\(id)/complete", token: setup.seller.token)
            for grade in [0.0, 0.3, 5.5, 4.25] {
                let response = try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": grade], token: buyer.token)
                #expect(try response.problemFields() == ["grade"], "\(grade)")
            }
            let long = try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": 4, "description": String(repeating: "a", count: 1001)], token: buyer.token)
            #expect(try long.problemFields() == ["description"])
            #expect(try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": 4.5], token: outsider.token).status == .forbidden)
            let created = try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": 4.5, "description": "친절해요"], token: buyer.token)
            #expect(created.status == .created)
            #expect(try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": 1], token: buyer.token).status == .conflict, "once")
            #expect(try await client.send(.post, "/v1/matches/\(id)/reviews", json: ["grade": 3.5], token: setup.seller.token).status == .created)

            let profile = try await client.send(.get, "/v1/users/\(setup.seller.id)").jsonObject()
            let rating = try #require(profile["rating"] as? [String: Any])
            #expect(rating["average"] as? Double == 4.5 && rating["count"] as? Int == 1)
            let writer = try await client.send(.get, "/v1/classes/\(setup.classId)").decoded(as: ClassResponse.self).writer
            #expect(writer.rating == Rating(average: 4.5, count: 1))
            let list = try await client.send(.get, "/v1/users/\(setup.seller.id)/reviews").decoded(as: TestPage<ReviewResponse>.self)
            #expect(list.items.map(\.description) == ["친절해요"])
            let review = try #require(list.items.first)
            #expect(review.matchId == id && review.reviewerId == buyer.id && review.revieweeId == setup.seller.id && review.grade == 4.5)
            #expect(try await client.send(.get, "/v1/users/01ZZZZZZZZZZZZZZZZZZZZZZZZ/reviews").status == .notFound)
        }
    }

    @Test("recommendations: opposite type, nearby, ranked, with reasons in range, never the caller's own")
    func recommendations() async throws {
        try await TestServer.withRouter { client in
            let (student, _) = try await client.signup()
            let (teacher, _) = try await client.signup()
            let (other, _) = try await client.signup()
            let here = ["lat": 37.4842, "lon": 126.9297]
            let wanted = try #require(try await client.createClass(token: student, [
                "type": "buy", "name": "수학 과외 구해요", "subjects": ["math"], "targets": ["junior"], "days": ["mon"], "price": 30000,
                "location": here])["id"] as? String)
            _ = try await client.createClass(token: teacher, ["name": "good", "subjects": ["math"], "targets": ["junior"], "days": ["mon"],
                                                              "price": 25000, "location": ["lat": 37.4850, "lon": 126.9300]])
            _ = try await client.createClass(token: other, ["name": "far", "subjects": ["hobby"], "targets": ["senior"], "days": ["sun"],
                                                            "price": 90000, "location": ["lat": 37.52, "lon": 126.95]])
            _ = try await client.createClass(token: other, ["name": "too far", "subjects": ["math"], "location": ["lat": 38.5, "lon": 127.5]])
            _ = try await client.createClass(token: student, ["name": "own sell class", "subjects": ["math"], "location": here])
            _ = try await client.createClass(token: other, ["type": "buy", "name": "same type", "subjects": ["math"], "location": here])
            let response = try await client.send(.get, "/v1/classes/\(wanted)/recommendations?radius=10000", token: student)
            #expect(response.status == .ok)
            let items = try #require(try response.jsonObject()["items"] as? [[String: Any]])
            #expect(items.compactMap { ($0["class"] as? [String: Any])?["name"] as? String } == ["good", "far"])
            let scores = items.compactMap { $0["score"] as? Double }
            #expect(scores.count == 2 && scores[0] > scores[1] && scores.allSatisfy { (0...1).contains($0) })
            for item in items {
                let reasons = try #require(item["reasons"] as? [String: Double])
                #expect(Set(reasons.keys) == ["subjects", "targets", "days", "distance", "price", "rating"])
                #expect(reasons.values.allSatisfy { (0...1).contains($0) })
            }
            #expect(try await client.send(.get, "/v1/classes/\(wanted)/recommendations?radius=0").problemFields() == ["radius"])
        }
    }

    @Test("alerts: a matching class notifies the alert owner (stored and pushed), never for the owner's own class")
    func alerts() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let app = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await app.runTest(.live) { client in
            let (watcher, _) = try await client.signup()
            let (teacher, _) = try await client.signup()
            let invalid = try await client.send(.post, "/v1/alerts", json: ["lat": 91, "lon": 0, "radius": 60000, "q": "!!"], token: watcher)
            #expect(try invalid.problemFields().sorted() == ["lat", "q", "radius"])
            let longQuery = try await client.send(.post, "/v1/alerts", json: [
                "lat": 37.5, "lon": 127, "radius": 1000, "q": String(repeating: "수", count: 201),
            ], token: watcher)
            #expect(try longQuery.problemFields() == ["q"])
            let alert = try await client.send(.post, "/v1/alerts", json: [
                "lat": 37.4842, "lon": 126.9297, "radius": 2000, "q": "수학", "subjects": ["math"], "maxPrice": 40000,
            ], token: watcher)
            #expect(alert.status == .created)
            let alertId = try alert.decoded(as: AlertResponse.self).id
            let socket = try await TestSocket.connect(port: try #require(client.port), token: watcher)

            let hit = try #require(try await client.createClass(token: teacher, [
                "name": "중학 수학 과외", "subjects": ["math"], "price": 30000, "location": ["lat": 37.4850, "lon": 126.9300]])["id"] as? String)
            _ = try await client.createClass(token: teacher, ["name": "중학 수학 과외", "subjects": ["math"], "price": 50000,
                                                              "location": ["lat": 37.4850, "lon": 126.9300]])
            _ = try await client.createClass(token: teacher, ["name": "요가", "subjects": ["hobby"], "location": ["lat": 37.4850, "lon": 126.9300]])
            _ = try await client.createClass(token: teacher, ["name": "수학", "subjects": ["math"], "price": 1, "location": ["lat": 37.6, "lon": 127.1]])
            _ = try await client.createClass(token: watcher, ["name": "수학 내 수업", "subjects": ["math"], "price": 1, "location": ["lat": 37.4850, "lon": 126.9300]])

            let pushed = try await socket.next(type: "notification")
            let notification = try #require(pushed["notification"] as? [String: Any])
            #expect(notification["classId"] as? String == hit && notification["alertId"] as? String == alertId)
            #expect(notification["kind"] as? String == "alert")
            #expect(await socket.drain().filter { $0["type"] as? String == "notification" }.isEmpty, "exactly one")
            let stored = try await client.send(.get, "/v1/me/notifications", token: watcher).jsonObject()
            let items = try #require(stored["items"] as? [[String: Any]])
            #expect(items.count == 1 && items.first?["read"] as? Bool == false)
            let id = try #require(items.first?["id"] as? String)
            #expect(try await client.send(.post, "/v1/me/notifications/read", json: ["ids": [id]], token: watcher).status == .noContent)
            let after = try await client.send(.get, "/v1/me/notifications", token: watcher).jsonObject()
            #expect((after["items"] as? [[String: Any]])?.first?["read"] as? Bool == true)

            #expect(try await client.send(.delete, "/v1/alerts/\(alertId)", token: teacher).status == .forbidden)
            #expect(try await client.send(.delete, "/v1/alerts/\(alertId)", token: watcher).status == .noContent)
            await socket.close()
        }
    }

    @Test("a reopened class is queued for alerts by the change itself: closed then opened again, and a cancel that frees a full class's seat")
    func reopeningNotifiesAlerts() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let (watcher, _) = try await client.signup()
            let alert = try await client.send(.post, "/v1/alerts", json: ["lat": 37.4842, "lon": 126.9297, "radius": 2000, "q": "기타"], token: watcher)
            #expect(alert.status == .created)
            let setup = try await Self.setUp(client, capacity: 1)

            /// Waits (the fan-out service polls once a second) until the watcher holds `count` alert notifications.
            func expectNotifications(_ count: Int, _ comment: Comment) async throws {
                var seen = 0
                for _ in 0..<50 {
                    let page = try await client.send(.get, "/v1/me/notifications", token: watcher).jsonObject()
                    seen = (page["items"] as? [[String: Any]])?.count ?? 0
                    if seen >= count { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(seen == count, comment)
            }
            try await expectNotifications(1, "the class's creation")

            // Through the repositories, not the routes: the transaction that reopens the class must queue it.
            _ = try await environment.classes.update(id: setup.classId, by: setup.seller.id) { $0.status = .closed }
            _ = try await environment.classes.update(id: setup.classId, by: setup.seller.id) { $0.status = .open }
            try await expectNotifications(2, "reopened by its writer")

            let matchId = try await Self.propose(client, roomId: setup.buyers[0].roomId, token: setup.buyers[0].token)
            #expect(try await client.send(.post, "/v1/matches/\(matchId)/accept", token: setup.seller.token).status == .ok)
            #expect(try await Self.classStatus(client, setup.classId) == .matched)
            let step = try await environment.matches.apply(.cancel, matchId: matchId, by: setup.buyers[0].id, at: Date())
            #expect(step.reopenedClass)
            try await expectNotifications(3, "reopened by a cancel")
        }
    }

    @Test("alert and match lists page newest first with cursors, each item once")
    func listPaging() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            var ids: [String] = []
            for index in 0..<5 {
                let response = try await client.send(.post, "/v1/alerts", json: ["lat": 37.5, "lon": 127.0, "radius": 1000 + index], token: token)
                let alert = try response.decoded(as: AlertResponse.self)
                #expect(alert.radius == Double(1000 + index) && alert.q == nil && alert.type == nil)
                ids.append(alert.id)
            }
            #expect(try await client.walk("/v1/alerts", token: token, limit: 2) == ids.reversed())
            let setup = try await Self.setUp(client, capacity: 5, buyers: 3)
            var matches: [String] = []
            for buyer in setup.buyers {
                matches.append(try await Self.propose(client, roomId: buyer.roomId, token: buyer.token))
            }
            #expect(try await client.walk("/v1/me/matches?role=seller", token: setup.seller.token, limit: 2) == matches.reversed())
        }
    }
}
