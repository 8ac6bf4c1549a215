import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

@Suite("Problem responses")
struct ProblemResponsesTests {
    @Test("malformed JSON is a 400 problem that leaks nothing")
    func malformedJSON() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.execute(
                uri: "/v1/auth/signup", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"email": "a@example.com", "password": "#))
            #expect(response.status == .badRequest)
            let problem = try response.problem()
            let detail = try #require(problem["detail"] as? String)
            #expect(detail.hasPrefix("the body is not valid JSON: "))
            #expect(!String(buffer: response.body).contains("DecodingError"))
        }
    }

    @Test("a body that is not an object is 400")
    func notAnObject() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.execute(uri: "/v1/auth/login", method: .post, headers: [.contentType: "application/json"],
                                                    body: ByteBuffer(string: "[1,2]"))
            #expect(response.status == .badRequest)
            #expect(try response.problem()["detail"] as? String == "the body must be an object, not an array")
        }
    }

    @Test("401 is a problem document")
    func unauthorized() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.get, "/v1/me")
            #expect(response.status == .unauthorized)
            #expect(try response.problem()["type"] as? String == "https://classtoday.app/problems/unauthorized")
        }
    }

    @Test("an unknown route is a 404 problem")
    func unknownRoute() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.get, "/v1/nothing/here")
            #expect(response.status == .notFound)
            _ = try response.problem()
        }
    }

    @Test("a known path with the wrong method is 405 with Allow")
    func wrongMethod() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.post, "/v1/me")
            #expect(response.status == .methodNotAllowed)
            _ = try response.problem()
            let allow = try #require(response.headers[.allow])
            #expect(allow.contains("GET") && allow.contains("PATCH") && allow.contains("DELETE"))
            let users = try await client.send(.post, "/v1/users/abc")
            #expect(users.status == .methodNotAllowed)
        }
    }

    @Test("a body over the limit is 413")
    func tooLarge() async throws {
        try await TestServer.withRouter(configure: { $0.maxBodyBytes = 1024 }) { client in
            let big = String(repeating: "a", count: 4096)
            let response = try await client.send(.post, "/v1/auth/signup", json: ["email": "a@example.com", "password": big, "nickname": "x"])
            #expect(response.status == .contentTooLarge)
            _ = try response.problem()
        }
    }

    @Test("422 lists one entry per bad field")
    func validation() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.post, "/v1/auth/signup", json: ["email": "x", "password": "y", "nickname": ""])
            #expect(response.status == .unprocessableContent)
            let problem = try response.problem()
            let errors = try #require(problem["errors"] as? [[String: String]])
            #expect(errors.map { $0["field"] } == ["email", "password", "nickname"])
            #expect(errors.allSatisfy { !($0["message"] ?? "").isEmpty })
        }
    }

    @Test("429 carries Retry-After and RateLimit headers; every API response carries RateLimit headers")
    func rateLimited() async throws {
        try await TestServer.withRouter(configure: { $0.rateLimitPerMinute = 3 }) { client in
            for remaining in [2, 1, 0] {
                let response = try await client.send(.get, "/v1/users/someone")
                #expect(response.status == .notFound)
                #expect(response.headers[.rateLimitLimit] == "3")
                #expect(response.headers[.rateLimitRemaining] == "\(remaining)")
                #expect(response.headers[.rateLimitReset] != nil)
            }
            let limited = try await client.send(.get, "/v1/users/someone")
            #expect(limited.status == .tooManyRequests)
            _ = try limited.problem()
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter >= 1 && retryAfter <= 20)
        }
    }

    @Test("login and signup have their own stricter limit")
    func authRateLimit() async throws {
        try await TestServer.withRouter(configure: { $0.authRateLimitPerMinute = 2 }) { client in
            for _ in 0..<2 {
                let response = try await client.send(.post, "/v1/auth/login", json: ["email": "a@example.com", "password": "password123"])
                #expect(response.status == .unauthorized)
            }
            let limited = try await client.send(.post, "/v1/auth/login", json: ["email": "a@example.com", "password": "password123"])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
            // Other API routes still answer.
            #expect(try await client.send(.get, "/v1/users/x").status == .notFound)
        }
    }

    @Test("every response has an X-Request-Id; a sane client id is echoed")
    func requestId() async throws {
        try await TestServer.withRouter { client in
            let generated = try await client.send(.get, "/health")
            #expect(generated.headers[.requestId]?.count == 26)
            let echoed = try await client.send(.get, "/v1/nothing", headers: [.requestId: "abc-123"])
            #expect(echoed.headers[.requestId] == "abc-123")
            let replaced = try await client.send(.get, "/health", headers: [.requestId: "bad id\u{7f}"])
            #expect(replaced.headers[.requestId] != "bad id\u{7f}")
        }
    }
}
