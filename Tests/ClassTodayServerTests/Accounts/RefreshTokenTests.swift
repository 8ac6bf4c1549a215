import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// Refresh tokens: each use rotates them; a used one presented again revokes its whole family.
@Suite("Refresh tokens")
struct RefreshTokenTests {
    /// Signs up and returns `(token, refreshToken)`.
    static func signUp(_ client: any TestClientProtocol) async throws -> (token: String, refreshToken: String) {
        let response = try await client.send(.post, "/v1/auth/signup", json: [
            "email": "r-\(UUID().uuidString.prefix(8))@example.com", "password": "correct horse", "nickname": "리프레시"])
        #expect(response.status == .created)
        let json = try response.jsonObject()
        return (try #require(json["token"] as? String), try #require(json["refreshToken"] as? String))
    }

    static func refresh(_ client: any TestClientProtocol, _ refreshToken: String) async throws -> TestResponse {
        try await client.send(.post, "/v1/auth/refresh", json: ["refreshToken": refreshToken])
    }

    @Test("a refresh hands out a new bearer and refresh token, and the client learns the bearer token's lifetime")
    func rotation() async throws {
        try await TestServer.withRouter(configure: { $0.tokenLifetime = .seconds(900) }) { client in
            let first = try await Self.signUp(client)
            let response = try await Self.refresh(client, first.refreshToken)
            #expect(response.status == .ok)
            let json = try response.jsonObject()
            #expect(json["expiresIn"] as? Int == 900)
            let token = try #require(json["token"] as? String)
            let refreshToken = try #require(json["refreshToken"] as? String)
            #expect(token != first.token && refreshToken != first.refreshToken)
            #expect((json["user"] as? [String: Any])?["nickname"] as? String == "리프레시")
            #expect(try await client.send(.get, "/v1/me", token: token).status == .ok)
            #expect(try await client.send(.get, "/v1/me", token: first.token).status == .ok, "the old bearer token lives out its time")
            #expect(try await Self.refresh(client, refreshToken).status == .ok, "the new refresh token works once")
        }
    }

    @Test("a replayed refresh token revokes its family: every bearer and refresh token of that sign-in, not others")
    func replay() async throws {
        try await TestServer.withRouter { client in
            let first = try await Self.signUp(client)
            let rotated = try await Self.refresh(client, first.refreshToken).jsonObject()
            let token = try #require(rotated["token"] as? String)
            let refreshToken = try #require(rotated["refreshToken"] as? String)
            let otherDevice = try await client.send(.post, "/v1/auth/login", json: [
                "email": try #require(try await client.send(.get, "/v1/me", token: token).jsonObject()["email"] as? String),
                "password": "correct horse"]).jsonObject()

            let replayed = try await Self.refresh(client, first.refreshToken)
            #expect(replayed.status == .unauthorized)
            #expect((try replayed.problem()["detail"] as? String)?.contains("used before") == true)
            #expect(try await client.send(.get, "/v1/me", token: token).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: first.token).status == .unauthorized)
            #expect(try await Self.refresh(client, refreshToken).status == .unauthorized)
            // Another sign-in of the same user is another family.
            #expect(try await client.send(.get, "/v1/me", token: try #require(otherDevice["token"] as? String)).status == .ok)
            #expect(try await Self.refresh(client, try #require(otherDevice["refreshToken"] as? String)).status == .ok)
        }
    }

    @Test("unknown, missing and logged-out refresh tokens")
    func invalid() async throws {
        try await TestServer.withRouter { client in
            #expect(try await Self.refresh(client, "no-such-token").status == .unauthorized)
            let missing = try await client.send(.post, "/v1/auth/refresh", json: [:] as [String: String])
            #expect(missing.status == .unprocessableContent)
            #expect(try missing.problemFields() == ["refreshToken"])
            let session = try await Self.signUp(client)
            #expect(try await client.send(.post, "/v1/auth/logout", token: session.token).status == .noContent)
            #expect(try await Self.refresh(client, session.refreshToken).status == .unauthorized, "logout ends the refresh token too")
        }
    }

    @Test("logout ends the whole sign-in: bearer tokens refreshing replaced stop too, other sign-ins go on")
    func logoutEndsTheFamily() async throws {
        try await TestServer.withRouter { client in
            let first = try await Self.signUp(client)
            let rotated = try await Self.refresh(client, first.refreshToken).jsonObject()
            let token = try #require(rotated["token"] as? String)
            let refreshToken = try #require(rotated["refreshToken"] as? String)
            let email = try #require(try await client.send(.get, "/v1/me", token: token).jsonObject()["email"] as? String)
            let otherDevice = try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": "correct horse"]).jsonObject()

            #expect(try await client.send(.post, "/v1/auth/logout", token: token).status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: token).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: first.token).status == .unauthorized, "the family's older bearer token")
            #expect(try await Self.refresh(client, refreshToken).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: try #require(otherDevice["token"] as? String)).status == .ok)
        }
    }

    @Test("expired refresh tokens do not work and are cleaned up")
    func expiry() async throws {
        try await TestServer.withEnvironment(.router, configure: { $0.refreshTokenLifetime = .seconds(1) }) { environment, client in
            let session = try await Self.signUp(client)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await Self.refresh(client, session.refreshToken).status == .unauthorized)
            #expect(try await environment.sessions.deleteExpired(before: Date()) == 1, "the refresh token; the bearer token lives on")
            #expect(try await client.send(.get, "/v1/me", token: session.token).status == .ok)
        }
    }
    @Test("a refreshed bearer token keeps its family's sign-in time: a refresh is not a fresh sign-in")
    func signInTimeCarriesForward() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let (_, userId) = try await client.signup()
            let sessions = environment.sessions
            let signedIn = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 20 * 60).rounded())
            func grant(_ name: String, at date: Date) -> SessionGrant {
                SessionGrant(accessTokenHash: "access-\(name)-\(userId)", refreshTokenHash: "refresh-\(name)-\(userId)", issuedAt: date,
                             accessExpiresAt: date + 3600, refreshExpiresAt: date + 86_400)
            }
            try await sessions.start(grant("first", at: signedIn), userId: userId)
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
            #expect(try await sessions.refresh(tokenHash: "refresh-first-\(userId)", with: grant("second", at: now)) == .rotated(userId: userId))
            let owner = try #require(try await sessions.owner(tokenHash: "access-second-\(userId)", now: now))
            #expect(abs(owner.signedInAt.timeIntervalSince(signedIn)) < 0.001)
            #expect(throws: DomainError.forbidden("sign in again, then delete the account within 10 minutes")) {
                try AccountDeletion.checkReauthentication(passwordMatches: nil, hasPassword: false, sessionStart: owner.signedInAt, now: now)
            }
        }
    }
}
