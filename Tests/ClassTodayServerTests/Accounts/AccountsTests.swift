import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
@testable import ClassTodayServer

@Suite("Accounts")
struct AccountsTests {
    @Test("signup returns 201 with a token and the full user, and the token works")
    func signupRoundTrip() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.post, "/v1/auth/signup",
                                                 json: ["email": "Kim@Example.com", "password": "password123", "nickname": "김선생"])
            #expect(response.status == .created)
            let json = try response.jsonObject()
            let token = try #require(json["token"] as? String)
            #expect(token.count == 43)
            let user = try #require(json["user"] as? [String: Any])
            #expect(user["email"] as? String == "Kim@Example.com")
            #expect(user["nickname"] as? String == "김선생")
            #expect(user["location"] is NSNull)
            #expect(user["profileImageUrl"] is NSNull)
            let rating = try #require(user["rating"] as? [String: Any])
            #expect(rating["count"] as? Int == 0)
            let createdAt = try #require(user["createdAt"] as? String)
            #expect(createdAt.hasSuffix("Z"))

            let me = try await client.send(.get, "/v1/me", token: token)
            #expect(me.status == .ok)
            #expect(try me.jsonObject()["id"] as? String == user["id"] as? String)
        }
    }

    @Test("signup validation names each bad field with 422", arguments: [
        (["email": "not-an-email", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a@b", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a b@example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": " a@example.com ", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "fl.@example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": ".a@example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a..b@example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a@-example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a@\(String(repeating: "x", count: 64)).com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "\(String(repeating: "a", count: 65))@example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "선생@example.com", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a@bücher.de", "password": "password123", "nickname": "a"], ["email"]),
        (["email": "a@example.com", "password": "short", "nickname": "a"], ["password"]),
        (["email": "a@example.com", "password": String(repeating: "가", count: 30), "nickname": "a"], ["password"]),
        (["email": "a@example.com", "password": "password123", "nickname": "   "], ["nickname"]),
        (["email": "a@example.com", "password": "password123", "nickname": String(repeating: "x", count: 41)], ["nickname"]),
        // Lengths count code points, as JSON Schema counts them: 21 letters with an accent each are 42.
        (["email": "a@example.com", "password": "password123", "nickname": String(repeating: "e\u{301}", count: 21)], ["nickname"]),
        (["password": "password123"], ["email", "nickname"]),
        ([:], ["email", "password", "nickname"]),
    ] as [([String: String], [String])])
    func signupValidation(body: [String: String], fields: [String]) async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.post, "/v1/auth/signup", json: body)
            #expect(response.status == .unprocessableContent)
            #expect(try response.problemFields().sorted() == fields.sorted())
        }
    }

    @Test("a duplicate email in any case is 409")
    func duplicateEmail() async throws {
        try await TestServer.withRouter { client in
            _ = try await client.signup(email: "lee@example.com")
            for email in ["lee@example.com", "LEE@EXAMPLE.COM", "Lee@Example.com"] {
                let response = try await client.send(.post, "/v1/auth/signup",
                                                     json: ["email": email, "password": "password123", "nickname": "이"])
                #expect(response.status == .conflict)
                #expect(try response.problem()["status"] as? Int == 409)
            }
        }
    }

    @Test("login succeeds with any email case and fails identically for unknown email and wrong password")
    func login() async throws {
        try await TestServer.withRouter { client in
            _ = try await client.signup(email: "park@example.com", password: "right password")
            let ok = try await client.send(.post, "/v1/auth/login", json: ["email": "PARK@example.com", "password": "right password"])
            #expect(ok.status == .ok)
            #expect(try ok.jsonObject()["token"] is String)

            let wrongPassword = try await client.send(.post, "/v1/auth/login", json: ["email": "park@example.com", "password": "wrong password"])
            let unknownEmail = try await client.send(.post, "/v1/auth/login", json: ["email": "nobody@example.com", "password": "right password"])
            #expect(wrongPassword.status == .unauthorized)
            #expect(unknownEmail.status == .unauthorized)
            #expect(try wrongPassword.problem()["detail"] as? String == unknownEmail.problem()["detail"] as? String)
        }
    }

    @Test("a sign-in is answered while every thread of NIO's shared I/O pool is busy: bcrypt has threads of its own")
    func signInBesideBusyIOPool() async throws {
        try await TestServer.withRouter { client in
            _ = try await client.signup(email: "busy@example.com", password: "right password")
            // Hold every thread of the shared pool (where uploads write their files) until the sign-in is answered, or
            // for 30 s at most: a sign-in that queued behind them would only be answered when they gave up.
            let threads = NIOSingletons.blockingPoolThreadCountSuggestion
            let started = NIOLockedValueBox(0), answered = NIOLockedValueBox(false)
            let holders = (0..<threads).map { _ in
                Task {
                    try await NIOThreadPool.singleton.runIfActive {
                        started.withLockedValue { $0 += 1 }
                        let deadline = Date().addingTimeInterval(30)
                        while !answered.withLockedValue({ $0 }), Date() < deadline { usleep(2_000) }
                        return answered.withLockedValue { $0 }
                    }
                }
            }
            #expect(await eventually { started.withLockedValue { $0 } == threads })
            let login = try await client.send(.post, "/v1/auth/login", json: ["email": "busy@example.com", "password": "right password"])
            answered.withLockedValue { $0 = true }
            var heldUntilAnswered = true
            for holder in holders { heldUntilAnswered = try await holder.value && heldUntilAnswered }
            #expect(login.status == .ok)
            #expect(heldUntilAnswered)
        }
    }

    @Test("logout revokes the token but not the user's other sessions")
    func logout() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup(email: "choi@example.com", password: "password123")
            let second = try #require(try await client.send(.post, "/v1/auth/login",
                                                             json: ["email": "choi@example.com", "password": "password123"]).jsonObject()["token"] as? String)
            #expect(try await client.send(.post, "/v1/auth/logout", token: token).status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: token).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: second).status == .ok)
            #expect(try await client.send(.post, "/v1/auth/logout", token: token).status == .unauthorized)
        }
    }

    @Test("an expired token is refused")
    func expiredToken() async throws {
        // The session is aged in the database rather than waited out: a loaded machine cannot make it expire early.
        try await TestServer.withEnvironment(.router) { environment, client in
            let (token, _) = try await client.signup()
            #expect(try await client.send(.get, "/v1/me", token: token).status == .ok)
            let past = Int64(Date().timeIntervalSince1970 * 1000) - 1
            try await environment.storage.database.execute("UPDATE sessions SET expires_at = \(past)")
            let expired = try await client.send(.get, "/v1/me", token: token)
            #expect(expired.status == .unauthorized)
            _ = try expired.problem()
        }
    }

    @Test("routes marked auth answer 401 without a token, with a malformed header, or with an unknown token")
    func unauthorized() async throws {
        try await TestServer.withRouter { client in
            let responses = [
                try await client.send(.get, "/v1/me"),
                try await client.send(.get, "/v1/me", headers: [.authorization: "Basic abc"]),
                try await client.send(.get, "/v1/me", token: "forged-token"),
                try await client.send(.patch, "/v1/me", json: ["nickname": "x"]),
                try await client.send(.put, "/v1/me/location", json: ["lat": 1, "lon": 1]),
            ]
            #expect(responses.map(\.status) == Array(repeating: .unauthorized, count: 5))
        }
    }

    @Test("PATCH /v1/me changes only the fields sent")
    func profileUpdate() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup(nickname: "원래")
            let response = try await client.send(.patch, "/v1/me", json: [
                "description": "수학을 가르칩니다", "company": "서울대학교", "subjects": ["math", "science"],
            ], token: token)
            #expect(response.status == .ok)
            let user = try response.jsonObject()
            #expect(user["nickname"] as? String == "원래")
            #expect(user["description"] as? String == "수학을 가르칩니다")
            #expect(user["subjects"] as? [String] == ["math", "science"])
            let again = try await client.send(.patch, "/v1/me", json: ["nickname": "새이름"], token: token).jsonObject()
            #expect(again["nickname"] as? String == "새이름")
            #expect(again["company"] as? String == "서울대학교")
        }
    }

    @Test("PATCH /v1/me validation", arguments: [
        (["nickname": ""], "nickname"),
        (["description": String(repeating: "a", count: 1001)], "description"),
        (["company": String(repeating: "a", count: 101)], "company"),
        (["subjects": ["math", "cooking"]], "subjects"),
        (["subjects": ["math", "math"]], "subjects"),
        (["profileImageId": "01J0000000000000000000000"], "profileImageId"),
    ] as [([String: any Sendable], String)])
    func profileValidation(body: [String: any Sendable], field: String) async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let response = try await client.send(.patch, "/v1/me", json: body, token: token)
            #expect(response.status == .unprocessableContent)
            #expect(try response.problemFields() == [field])
        }
    }

    @Test("a wrong JSON type is 400, not 422 or 500")
    func wrongType() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let response = try await client.send(.patch, "/v1/me", json: ["nickname": 42], token: token)
            #expect(response.status == .badRequest)
            let detail = try #require(try response.problem()["detail"] as? String)
            #expect(detail.contains("nickname"))
        }
    }

    @Test("PUT /v1/me/location stores the location privately")
    func location() async throws {
        try await TestServer.withRouter { client in
            let (token, id) = try await client.signup()
            let bad = try await client.send(.put, "/v1/me/location", json: ["lat": 91, "lon": -181], token: token)
            #expect(bad.status == .unprocessableContent)
            #expect(try bad.problemFields().sorted() == ["lat", "lon"])
            let response = try await client.send(.put, "/v1/me/location", json: [
                "lat": 37.4842, "lon": 126.9297, "keywordLocation": "관악구", "detailLocation": "신림동",
            ], token: token)
            #expect(response.status == .ok)
            let location = try #require(try response.jsonObject()["location"] as? [String: Double])
            #expect(location == ["lat": 37.4842, "lon": 126.9297])

            let profile = try await client.send(.get, "/v1/users/\(id)").jsonObject()
            #expect(profile["id"] as? String == id)
            #expect(profile["email"] == nil)
            #expect(profile["location"] == nil)
            #expect(profile["keywordLocation"] == nil)
            #expect(profile["rating"] is [String: Any])
            #expect(try await client.send(.get, "/v1/users/nobody").status == .notFound)
        }
    }
}
