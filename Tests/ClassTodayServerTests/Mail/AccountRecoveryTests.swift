import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

/// Password reset, email verification and changes of password and address through the routes, with mails written to
/// the mail folder (no SMTP server configured: the default).
@Suite("Account recovery")
struct AccountRecoveryTests {
    static let password = "correct horse"

    @Test("a reset mails a single-use link to an existing address only, answering 202 to both")
    func resetRoundTrip() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let email = "reset-\(UUID().uuidString.prefix(8))@example.com"
            let (oldToken, _) = try await client.signup(email: email)
            _ = try await environment.folderMail(to: email)
            let unknown = try await client.send(.post, "/v1/auth/password-reset", json: ["email": "nobody-\(UUID())@example.com"])
            #expect(unknown.status == .accepted)
            let known = try await client.send(.post, "/v1/auth/password-reset", json: ["email": email.uppercased()])
            #expect(known.status == .accepted)
            #expect(known.body.readableBytes == unknown.body.readableBytes)
            let mail = try await environment.folderMail(to: email, count: 2)
            let token = try #require(mail.token)
            #expect(mail.text.contains("30"))
            #expect(mail.html.contains("#reset-password?token=\(token)"))
            try await Task.sleep(for: .milliseconds(200))
            #expect(environment.folderMails().count == 2, "no mail went to the unknown address")

            let reset = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": token, "newPassword": "a new password"])
            #expect(reset.status == .ok)
            let session = try reset.jsonObject()
            let newToken = try #require(session["token"] as? String)
            #expect(session["refreshToken"] is String)
            #expect((session["user"] as? [String: Any])?["emailVerified"] as? Bool == true, "the mail reached the address")
            #expect(try await client.send(.get, "/v1/me", token: oldToken).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: newToken).status == .ok)
            #expect(try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": Self.password]).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": "a new password"]).status == .ok)

            let again = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": token, "newPassword": "another password"])
            #expect(again.status == .badRequest)
            #expect(try again.problemFields() == ["token"])
        }
    }

    @Test("unknown, expired and outdated tokens get the one 400 naming the token; a weak password gets 422")
    func refusals() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let email = "refuse-\(UUID().uuidString.prefix(8))@example.com"
            let (callerToken, _) = try await client.signup(email: email)
            var problems: [String] = []
            for token in ["AAAAAAAAAAAAAAAAAAAAAA", "x"] {
                let response = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": token, "newPassword": "a new password"])
                #expect(response.status == .badRequest)
                _ = try response.problem()
                problems.append(String(buffer: response.body))
            }
            // Expired.
            try await client.send(.post, "/v1/auth/password-reset", json: ["email": email])
            let expired = try #require(try await environment.folderMail(to: email, count: 2).token)
            try await environment.storage.database.execute("UPDATE account_tokens SET expires_at = 0 WHERE purpose = 'password_reset'")
            let late = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": expired, "newPassword": "a new password"])
            #expect(late.status == .badRequest)
            problems.append(String(buffer: late.body))
            // Outdated: the password changed since the mail went.
            try await client.send(.post, "/v1/auth/password-reset", json: ["email": email])
            let outdated = try #require(try await environment.folderMail(to: email, count: 3).token)
            let weak = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": outdated, "newPassword": "short"])
            #expect(weak.status == .unprocessableContent)
            #expect(try weak.problemFields() == ["newPassword"])
            let change = try await client.send(.put, "/v1/me/password", json: ["currentPassword": Self.password, "newPassword": "changed password"],
                                               token: callerToken)
            #expect(change.status == .noContent)
            let stale = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": outdated, "newPassword": "a new password"])
            #expect(stale.status == .badRequest)
            problems.append(String(buffer: stale.body))
            #expect(problems.count == 4 && Set(problems).count == 1, "every refusal reads the same: \(Set(problems).sorted())")
            let missing = try await client.send(.post, "/v1/auth/password-reset/confirm", json: [:])
            #expect(try missing.problemFields().sorted() == ["newPassword", "token"])
            let badEmail = try await client.send(.post, "/v1/auth/password-reset", json: ["email": "not an address"])
            #expect(try badEmail.problemFields() == ["email"])
        }
    }

    @Test("resets are limited per address and per client, with 429 and Retry-After")
    func rateLimits() async throws {
        try await TestServer.withEnvironment(.router, configure: {
            $0.accounts.mailsPerAddressPerHour = 2
            $0.accounts.resetRequestsPerClientPerHour = 4
        }) { _, client in
            let address = "limited@example.com"
            for _ in 0..<2 {
                #expect(try await client.send(.post, "/v1/auth/password-reset", json: ["email": address]).status == .accepted)
            }
            let third = try await client.send(.post, "/v1/auth/password-reset", json: ["email": address.uppercased()])
            #expect(third.status == .tooManyRequests)
            #expect(Int(third.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try third.problem()["status"] as? Int == 429)
            // Two more addresses reach the client's limit of four requests (the refused one counted too).
            #expect(try await client.send(.post, "/v1/auth/password-reset", json: ["email": "other@example.com"]).status == .accepted)
            let client5 = try await client.send(.post, "/v1/auth/password-reset", json: ["email": "third@example.com"])
            #expect(client5.status == .tooManyRequests)
            #expect(client5.headers[.retryAfter] != nil)
        }
    }

    @Test("signup mails a verification link in the language asked for; verifying shows in /v1/me")
    func verification() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let email = "verify-\(UUID().uuidString.prefix(8))@example.com"
            let signup = try await client.send(.post, "/v1/auth/signup", json: ["email": email, "password": Self.password, "nickname": "Kim"],
                                               headers: [.acceptLanguage: "en-US,en;q=0.9,ko;q=0.5"])
            let session = try signup.jsonObject()
            let token = try #require(session["token"] as? String)
            let user = try #require(session["user"] as? [String: Any])
            #expect(user["emailVerified"] as? Bool == false)
            #expect(user["locale"] as? String == "en")
            let mail = try await environment.folderMail(to: email)
            #expect(mail.text.contains("Confirm"))
            let link = try #require(mail.token)

            let resend = try await client.send(.post, "/v1/auth/verify-email/resend", token: token)
            #expect(resend.status == .accepted)
            let newest = try #require(try await environment.folderMail(to: email, count: 2).token)
            let replaced = try await client.send(.post, "/v1/auth/verify-email", json: ["token": link])
            #expect(replaced.status == .badRequest, "only the newest link works")
            #expect(try await client.send(.post, "/v1/auth/verify-email", json: ["token": newest]).status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: token).jsonObject()["emailVerified"] as? Bool == true)
            #expect(try await client.send(.post, "/v1/auth/verify-email", json: ["token": newest]).status == .badRequest)
            #expect(try await client.send(.post, "/v1/auth/verify-email/resend", token: token).status == .conflict)

            let korean = try await client.send(.patch, "/v1/me", json: ["locale": "ko"], token: token)
            #expect(try korean.jsonObject()["locale"] as? String == "ko")
            let wrong = try await client.send(.patch, "/v1/me", json: ["locale": "fr"], token: token)
            #expect(try wrong.problemFields() == ["locale"])
        }
    }

    @Test("with auth.requireVerifiedEmail, posting classes and opening chats wait for a verified address")
    func requireVerifiedEmail() async throws {
        try await TestServer.withEnvironment(.router, configure: { $0.accounts.requireVerifiedEmail = true }) { environment, client in
            let email = "strict-\(UUID().uuidString.prefix(8))@example.com"
            let (token, _) = try await client.signup(email: email)
            let refused = try await client.send(.post, "/v1/classes", json: RecoveryFixtures.classBody(), token: token)
            #expect(refused.status == .forbidden)
            #expect((try refused.problem()["detail"] as? String)?.contains("verify your email") == true)
            let verification = try #require(try await environment.folderMail(to: email).token)
            #expect(try await client.send(.post, "/v1/auth/verify-email", json: ["token": verification]).status == .noContent)
            let classId = try #require(try await client.send(.post, "/v1/classes", json: RecoveryFixtures.classBody(), token: token).jsonObject()["id"] as? String)

            let (buyer, _) = try await client.signup()
            let room = try await client.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer)
            #expect(room.status == .forbidden)
        }
    }

    @Test("a change of password keeps the caller's session and ends the others")
    func changePassword() async throws {
        try await TestServer.withEnvironment(.router) { _, client in
            let email = "change-\(UUID().uuidString.prefix(8))@example.com"
            let (first, _) = try await client.signup(email: email)
            let second = try #require(try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": Self.password])
                .jsonObject()["token"] as? String)
            let wrong = try await client.send(.put, "/v1/me/password", json: ["currentPassword": "not it at all", "newPassword": "changed password"], token: first)
            #expect(wrong.status == .forbidden)
            let weak = try await client.send(.put, "/v1/me/password", json: ["currentPassword": Self.password, "newPassword": "x"], token: first)
            #expect(try weak.problemFields() == ["newPassword"])
            let changed = try await client.send(.put, "/v1/me/password", json: ["currentPassword": Self.password, "newPassword": "changed password"], token: first)
            #expect(changed.status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: first).status == .ok)
            #expect(try await client.send(.get, "/v1/me", token: second).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": "changed password"]).status == .ok)
        }
    }

    @Test("a change of address applies when the link to the new one is followed; the old one gets a notice with no link")
    func changeEmail() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let old = "old-\(UUID().uuidString.prefix(8))@example.com"
            let new = "new-\(UUID().uuidString.prefix(8))@example.com"
            let (token, _) = try await client.signup(email: old)
            let (_, _) = try await client.signup(email: "taken@example.com")
            #expect(try await client.send(.put, "/v1/me/email", json: ["password": "wrong password", "newEmail": new], token: token).status == .forbidden)
            #expect(try await client.send(.put, "/v1/me/email", json: ["password": Self.password, "newEmail": "TAKEN@example.com"], token: token).status == .conflict)
            #expect(try await client.send(.put, "/v1/me/email", json: ["password": Self.password, "newEmail": "nope"], token: token)
                .problemFields() == ["newEmail"])
            // A reset link mailed before the change stops working once the address changed.
            try await client.send(.post, "/v1/auth/password-reset", json: ["email": old])
            let resetToken = try #require(try await environment.folderMail(to: old, count: 2).token)

            #expect(try await client.send(.put, "/v1/me/email", json: ["password": Self.password, "newEmail": new], token: token).status == .accepted)
            let link = try await environment.folderMail(to: new)
            let notice = try await environment.folderMail(to: old, count: 3)
            #expect(notice.text.contains(new))
            #expect(notice.token == nil && !notice.text.contains("http") && !notice.html.contains("href"), "nothing to act on")
            #expect(try await client.send(.get, "/v1/me", token: token).jsonObject()["email"] as? String == old, "not before the link is followed")

            #expect(try await client.send(.post, "/v1/auth/verify-email", json: ["token": try #require(link.token)]).status == .noContent)
            let me = try await client.send(.get, "/v1/me", token: token).jsonObject()
            #expect(me["email"] as? String == new)
            #expect(me["emailVerified"] as? Bool == true)
            #expect(try await client.send(.post, "/v1/auth/login", json: ["email": new, "password": Self.password]).status == .ok)
            #expect(try await client.send(.post, "/v1/auth/login", json: ["email": old, "password": Self.password]).status == .unauthorized)
            let stale = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": resetToken, "newPassword": "a new password"])
            #expect(stale.status == .badRequest)
        }
    }

    @Test("a reset ends every session: old bearer and refresh tokens fail and every chat socket closes")
    func resetEndsSessions() async throws {
        try await TestServer.withEnvironment(.live) { environment, client in
            let email = "sockets-\(UUID().uuidString.prefix(8))@example.com"
            let signup = try await client.send(.post, "/v1/auth/signup", json: ["email": email, "password": Self.password, "nickname": "s"]).jsonObject()
            let first = try #require(signup["token"] as? String)
            let refresh = try #require(signup["refreshToken"] as? String)
            let second = try #require(try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": Self.password])
                .jsonObject()["token"] as? String)
            let port = try #require(client.port)
            let sockets = [try await TestSocket.connect(port: port, token: first), try await TestSocket.connect(port: port, token: second)]
            for socket in sockets {
                // A pong proves the connection is registered, so that the reset's close reaches it.
                socket.send(["type": "ping"])
                _ = try await socket.next(type: "pong")
            }

            try await client.send(.post, "/v1/auth/password-reset", json: ["email": email])
            let token = try #require(try await environment.folderMail(to: email, count: 2).token)
            #expect(try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": token, "newPassword": "a new password"]).status == .ok)
            for socket in sockets { #expect(await socket.closedByServer()) }
            for old in [first, second] { #expect(try await client.send(.get, "/v1/me", token: old).status == .unauthorized) }
            #expect(try await client.send(.post, "/v1/auth/refresh", json: ["refreshToken": refresh]).status == .unauthorized)
        }
    }
}

/// What the account-recovery tests post.
enum RecoveryFixtures {
    /// A valid class body.
    static func classBody() -> [String: Any] {
        [
            "type": "sell", "name": "기타 왕초보 레슨", "description": "신림역 근처에서 기타를 가르쳐요.",
            "days": ["sat"], "price": 20000, "priceUnit": "perHour", "subjects": ["hobby"], "targets": ["all"],
        ]
    }
}
