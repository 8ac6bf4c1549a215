import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

@Suite("Classes")
struct ClassesTests {
    @Test("create returns 201 with every contract field, and GET returns the same class")
    func createAndRead() async throws {
        try await TestServer.withRouter { client in
            let (token, userId) = try await client.signup(nickname: "기타선생")
            let created = try await client.createClass(token: token)
            let id = try #require(created["id"] as? String)
            #expect(created["type"] as? String == "sell")
            #expect(created["name"] as? String == "기타 왕초보 레슨")
            #expect(created["days"] as? [String] == ["sat", "sun"])
            #expect(created["time"] as? String == "10:00-12:00")
            #expect(created["location"] as? [String: Double] == ["lat": 37.4842, "lon": 126.9297])
            #expect(created["price"] as? Int == 20000)
            #expect(created["priceUnit"] as? String == "perHour")
            #expect(created["capacity"] as? Int == 2)
            #expect(created["status"] as? String == "open")
            #expect(created["images"] as? [Any] != nil)
            #expect(created["favoriteCount"] as? Int == 0)
            #expect(created["isFavorite"] as? Bool == false)
            #expect(created["distance"] == nil)
            let writer = try #require(created["writer"] as? [String: Any])
            #expect(writer["id"] as? String == userId)
            #expect(writer["nickname"] as? String == "기타선생")
            #expect(writer["rating"] is [String: Any])
            #expect(created["createdAt"] is String && created["updatedAt"] is String)

            let fetched = try await client.send(.get, "/v1/classes/\(id)")
            #expect(fetched.status == .ok)
            #expect(try fetched.jsonObject()["name"] as? String == "기타 왕초보 레슨")
            #expect(try await client.send(.get, "/v1/classes/01ZZZZZZZZZZZZZZZZZZZZZZZZ").status == .notFound)
        }
    }

    @Test("defaults: capacity 1, priceUnit perHour, empty lists, nullable fields null")
    func defaults() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let response = try await client.send(.post, "/v1/classes", json: ["type": "buy", "name": "수학 과외 구해요"], token: token)
            #expect(response.status == .created)
            // Decoding checks that the nullable fields are there, as null.
            let listing = try response.decoded(as: ClassResponse.self)
            #expect(listing.capacity == 1)
            #expect(listing.priceUnit == .perHour)
            #expect(listing.days.isEmpty && listing.subjects.isEmpty && listing.targets.isEmpty && listing.images.isEmpty)
            #expect(listing.price == nil && listing.location == nil && listing.time == nil && listing.place == nil && listing.keywordLocation == nil)
            #expect(listing.distance == nil && !listing.hidden)
        }
    }

    @Test("each validation rule answers 422 naming its field", arguments: [
        (["name": ""], "name"),
        (["name": String(repeating: "가", count: 101)], "name"),
        (["description": String(repeating: "a", count: 5001)], "description"),
        (["type": "rent"], "type"),
        (["days": ["mon", "funday"]], "days"),
        (["days": ["mon", "mon"]], "days"),
        (["subjects": ["math", "math"]], "subjects"),
        (["subjects": ["cooking"]], "subjects"),
        (["targets": ["aliens"]], "targets"),
        (["targets": ["all", "all"]], "targets"),
        (["price": -1], "price"),
        (["price": 100_000_001], "price"),
        (["priceUnit": "perMonth"], "priceUnit"),
        (["location": ["lat": 90.5, "lon": 0]], "location.lat"),
        (["location": ["lat": 0, "lon": -180.1]], "location.lon"),
        (["location": ["lat": 10]], "location.lon"),
        (["capacity": 0], "capacity"),
        (["capacity": 101], "capacity"),
        (["time": "21:00-19:00"], "time"),
        (["time": "7pm"], "time"),
        (["time": "+9:00-10:00"], "time"),
        (["time": "\u{FF11}\u{FF10}:00-12:00"], "time"),
        (["name": String(repeating: "e\u{301}", count: 51)], "name"),
        (["imageIds": Array(repeating: "x", count: 11)], "imageIds"),
        (["imageIds": ["01ZZZZZZZZZZZZZZZZZZZZZZZZ"]], "imageIds"),
    ] as [([String: any Sendable], String)])
    func validation(overrides: [String: any Sendable], field: String) async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let response = try await client.send(.post, "/v1/classes", json: type(of: client).classBody(overrides), token: token)
            #expect(response.status == .unprocessableContent)
            #expect(try response.problemFields().contains(field))
        }
    }

    @Test("type and name are required on create")
    func requiredFields() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let response = try await client.send(.post, "/v1/classes", json: ["description": "x"], token: token)
            #expect(try response.problemFields().sorted() == ["name", "type"])
        }
    }

    @Test("fields the client must not set are ignored")
    func massAssignment() async throws {
        try await TestServer.withRouter { client in
            let (token, userId) = try await client.signup()
            let (_, otherId) = try await client.signup()
            let created = try await client.createClass(token: token, [
                "id": "01AAAAAAAAAAAAAAAAAAAAAAAA", "status": "matched", "favoriteCount": 99, "writer": ["id": otherId],
                "writerId": otherId, "createdAt": "2000-01-01T00:00:00Z", "isFavorite": true,
            ])
            #expect(created["id"] as? String != "01AAAAAAAAAAAAAAAAAAAAAAAA")
            #expect(created["status"] as? String == "open")
            #expect(created["favoriteCount"] as? Int == 0)
            #expect((created["writer"] as? [String: Any])?["id"] as? String == userId)
            #expect(created["createdAt"] as? String != "2000-01-01T00:00:00Z")
            let id = try #require(created["id"] as? String)
            let patched = try await client.send(.patch, "/v1/classes/\(id)", json: ["status": "closed", "favoriteCount": 5, "name": "새 이름"], token: token)
            let json = try patched.jsonObject()
            #expect(json["status"] as? String == "open")
            #expect(json["favoriteCount"] as? Int == 0)
            #expect(json["name"] as? String == "새 이름")
        }
    }

    @Test("PATCH changes only the fields sent; null clears a clearable field")
    func patch() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try #require(try await client.createClass(token: token)["id"] as? String)
            let response = try await client.send(.patch, "/v1/classes/\(id)", json: ["price": NSNull(), "capacity": 3, "location": NSNull()], token: token)
            #expect(response.status == .ok)
            let listing = try response.decoded(as: ClassResponse.self)
            #expect(listing.price == nil && listing.location == nil)
            #expect(listing.capacity == 3)
            #expect(listing.name == "기타 왕초보 레슨")
            #expect(listing.time == "10:00-12:00")
            #expect(listing.keywordLocation == "관악구" && listing.days == [.sat, .sun])
            let invalid = try await client.send(.patch, "/v1/classes/\(id)", json: ["capacity": 0], token: token)
            #expect(try invalid.problemFields() == ["capacity"])
        }
    }

    @Test("only the writer may change, close, reopen or delete: 403 for others, 401 without a token, 404 when missing")
    func ownership() async throws {
        try await TestServer.withRouter { client in
            let (owner, _) = try await client.signup()
            let (stranger, _) = try await client.signup()
            let id = try #require(try await client.createClass(token: owner)["id"] as? String)
            let attempts: [(HTTPRequest.Method, String, [String: Any]?)] = [
                (.patch, "/v1/classes/\(id)", ["name": "hijack"]),
                (.put, "/v1/classes/\(id)/status", ["status": "closed"]),
                (.delete, "/v1/classes/\(id)", nil),
            ]
            for (method, path, body) in attempts {
                let forbidden = try await client.send(method, path, json: body, token: stranger)
                #expect(forbidden.status == .forbidden, "\(method) \(path)")
                _ = try forbidden.problem()
                #expect(try await client.send(method, path, json: body).status == .unauthorized)
                let missing = path.replacingOccurrences(of: id, with: "01ZZZZZZZZZZZZZZZZZZZZZZZZ")
                #expect(try await client.send(method, missing, json: body, token: owner).status == .notFound)
            }
            #expect(try await client.send(.get, "/v1/classes/\(id)").jsonObject()["name"] as? String == "기타 왕초보 레슨")
        }
    }

    @Test("the writer closes and reopens a class; matched cannot be set by hand")
    func status() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let id = try #require(try await client.createClass(token: token)["id"] as? String)
            let closed = try await client.send(.put, "/v1/classes/\(id)/status", json: ["status": "closed"], token: token)
            #expect(try closed.decoded(as: ClassResponse.self).status == .closed)
            let reopened = try await client.send(.put, "/v1/classes/\(id)/status", json: ["status": "open"], token: token)
            #expect(try reopened.decoded(as: ClassResponse.self).status == .open)
            let matched = try await client.send(.put, "/v1/classes/\(id)/status", json: ["status": "matched"], token: token)
            #expect(try matched.problemFields() == ["status"])
            let missing = try await client.send(.put, "/v1/classes/\(id)/status", json: [:], token: token)
            #expect(try missing.problemFields() == ["status"])
        }
    }

    @Test("delete answers 204, then the class is gone from reads, lists and favourites")
    func delete() async throws {
        try await TestServer.withRouter { client in
            let (owner, ownerId) = try await client.signup()
            let (fan, _) = try await client.signup()
            let id = try #require(try await client.createClass(token: owner)["id"] as? String)
            #expect(try await client.send(.put, "/v1/classes/\(id)/favorite", token: fan).status == .noContent)
            #expect(try await client.send(.delete, "/v1/classes/\(id)", token: owner).status == .noContent)
            #expect(try await client.send(.get, "/v1/classes/\(id)").status == .notFound)
            #expect(try await client.walk("/v1/me/favorites", token: fan, limit: 10) == [])
            #expect(try await client.walk("/v1/users/\(ownerId)/classes", limit: 10) == [])
            #expect(try await client.send(.delete, "/v1/classes/\(id)", token: owner).status == .notFound)
            #expect(try await client.send(.put, "/v1/classes/\(id)/favorite", token: fan).status == .notFound)
        }
    }

    @Test("favourites are idempotent and counted once per user")
    func favorites() async throws {
        try await TestServer.withRouter { client in
            let (owner, _) = try await client.signup()
            let (fan, _) = try await client.signup()
            let id = try #require(try await client.createClass(token: owner)["id"] as? String)
            for _ in 0..<3 {
                #expect(try await client.send(.put, "/v1/classes/\(id)/favorite", token: fan).status == .noContent)
            }
            func listing(as token: String?) async throws -> ClassResponse {
                try await client.send(.get, "/v1/classes/\(id)", token: token).decoded()
            }
            var seen = try await listing(as: fan)
            #expect(seen.favoriteCount == 1)
            #expect(seen.isFavorite)
            let anonymous = try await listing(as: nil)
            #expect(!anonymous.isFavorite && anonymous.favoriteCount == 1)
            // A search page reads its listings with one statement, for a viewer or for nobody.
            for (token, isFavorite) in [(fan, true), (owner, false), (nil, false)] {
                let items = try await client.send(.get, "/v1/classes?limit=5", token: token).jsonObject()["items"] as? [[String: Any]]
                #expect(items?.first { $0["id"] as? String == id }?["isFavorite"] as? Bool == isFavorite)
            }
            #expect(try await client.walk("/v1/me/favorites", token: fan, limit: 5) == [id])
            for _ in 0..<2 {
                #expect(try await client.send(.delete, "/v1/classes/\(id)/favorite", token: fan).status == .noContent)
            }
            seen = try await listing(as: fan)
            #expect(seen.favoriteCount == 0)
            #expect(!seen.isFavorite)
            #expect(try await client.send(.put, "/v1/classes/\(id)/favorite").status == .unauthorized)
        }
    }

    @Test("my classes and a user's classes list newest first and page with cursors")
    func lists() async throws {
        try await TestServer.withRouter { client in
            let (token, userId) = try await client.signup()
            var ids: [String] = []
            for index in 0..<7 {
                ids.append(try #require(try await client.createClass(token: token, ["name": "수업 \(index)"])["id"] as? String))
            }
            #expect(try await client.walk("/v1/me/classes", token: token, limit: 3) == ids.reversed())
            #expect(try await client.walk("/v1/users/\(userId)/classes", limit: 2) == ids.reversed())
            #expect(try await client.send(.get, "/v1/me/classes").status == .unauthorized)
            let unknownUser = try await client.send(.get, "/v1/users/01ZZZZZZZZZZZZZZZZZZZZZZZZ/classes")
            #expect(unknownUser.status == .notFound)
            _ = try unknownUser.problem()
        }
    }

    @Test("limit and cursor are validated")
    func paginationValidation() async throws {
        try await TestServer.withRouter { client in
            let (token, userId) = try await client.signup()
            for limit in ["0", "101", "abc"] {
                let response = try await client.send(.get, "/v1/users/\(userId)/classes?limit=\(limit)")
                #expect(try response.problemFields() == ["limit"])
            }
            let badCursor = try await client.send(.get, "/v1/me/classes?cursor=not-a-cursor", token: token)
            #expect(try badCursor.problemFields() == ["cursor"])
        }
    }

    @Test("walking pages while classes are being created visits each existing class exactly once")
    func cursorWalkUnderConcurrentInserts() async throws {
        try await TestServer.withRouter { client in
            let (token, userId) = try await client.signup()
            var existing: [String] = []
            for index in 0..<25 {
                existing.append(try #require(try await client.createClass(token: token, ["name": "기존 \(index)"])["id"] as? String))
            }
            let writer = Task {
                for index in 0..<20 {
                    _ = try await client.createClass(token: token, ["name": "새 수업 \(index)"])
                }
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                var uri = "/v1/users/\(userId)/classes?limit=4"
                if let cursor { uri += "&cursor=\(cursor)" }
                let json = try await client.send(.get, uri).jsonObject()
                seen += (json["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                cursor = json["nextCursor"] as? String
                try await Task.sleep(for: .milliseconds(2))
            } while cursor != nil
            try await writer.value
            #expect(Set(seen).count == seen.count, "no class twice")
            #expect(Set(existing).isSubset(of: Set(seen)), "every class that existed before the walk")
        }
    }

    @Test("GET /v1/categories lists subjects and targets with Korean names")
    func categories() async throws {
        try await TestServer.withRouter { client in
            let json = try await client.send(.get, "/v1/categories").jsonObject()
            let subjects = try #require(json["subjects"] as? [[String: String]])
            #expect(subjects.count == 9)
            #expect(subjects.first { $0["id"] == "math" }?["name"] == "수학")
            let targets = try #require(json["targets"] as? [[String: String]])
            #expect(targets.map { $0["id"] } == ["elementary", "junior", "senior", "university", "housewife", "all"])
        }
    }
}
