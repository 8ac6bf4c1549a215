import ClassTodayCore
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

/// Sign-in with providers against a stand-in provider on loopback: keys generated here, tokens signed with them.
@Suite("Sign-in providers")
struct SignInTests {
    static let clientId = "app.classtoday.ios"
    static let appleIssuer = "https://appleid.apple.com"
    static let googleIssuer = "https://accounts.google.com"

    /// Claims a provider would put in a fresh token for `sub`.
    static func claims(_ sub: String = "sub-\(UUID().uuidString)", issuer: String = appleIssuer, audience: String = clientId,
                       expiresIn: Int = 600, issuedAgo: Int = 5, validIn: Int? = nil, nonce: String? = nil, email: String? = nil,
                       name: String? = nil) -> TestClaims {
        let now = Int(Date().timeIntervalSince1970)
        return TestClaims(iss: issuer, sub: sub, aud: audience, exp: now + expiresIn, iat: now - issuedAgo, nbf: validIn.map { now + $0 },
                          nonce: nonce, email: email, email_verified: email == nil ? nil : "true", name: name)
    }

    /// Runs `body` with a stand-in publishing `keys` and a server whose Apple, Google and Naver sign-ins point at it
    /// (Kakao stays unconfigured).
    static func withProviders(
        _ keys: [TestSigningKey], keyRefetch: Duration = .seconds(60),
        configure: @escaping @Sendable (inout AppConfiguration, Int) -> Void = { _, _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, StandInProvider) async throws -> Void
    ) async throws {
        let provider = StandInProvider()
        provider.publish(keys)
        try await provider.run { port in
            try await TestServer.withRouter(configure: { configuration in
                let jwks = "http://127.0.0.1:\(port)/jwks"
                configuration.signIn.apple = OpenIDProviderSettings(issuers: [appleIssuer], jwksURL: jwks, clientIds: [clientId])
                configuration.signIn.google = OpenIDProviderSettings(issuers: [googleIssuer], jwksURL: jwks, clientIds: ["web-client", clientId])
                configuration.signIn.naver.enabled = true
                configuration.signIn.naver.profileURL = "http://127.0.0.1:\(port)/naver/me"
                configuration.signIn.keyRefetchInterval = keyRefetch
                configure(&configuration, port)
            }) { client in try await body(client, provider) }
        }
    }

    @Test("a first sign-in creates the account, a later one signs in to it; no password login, no public email")
    func firstAndLaterSignIn() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, _ in
            let relay = "abc123@privaterelay.appleid.com"
            let nonce = "raw-nonce-\(UUID().uuidString)"
            let hashed = SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
            let claims = Self.claims("001234.apple", nonce: hashed, email: relay)
            let first = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(claims), "nonce": nonce])
            #expect(first.status == .ok)
            let json = try first.jsonObject()
            #expect(json["created"] as? Bool == true)
            #expect(json["expiresIn"] as? Int == 30 * 24 * 3600)
            #expect((json["refreshToken"] as? String)?.count == 43)
            let user = try #require(json["user"] as? [String: Any])
            let id = try #require(user["id"] as? String)
            #expect(user["email"] as? String == relay)
            let nickname = try #require(user["nickname"] as? String)
            #expect(nickname.hasPrefix("이웃") && nickname.count == 8, "Apple gives no name: a generated nickname")
            #expect(user["termsUpToDate"] as? Bool == true)
            let token = try #require(json["token"] as? String)
            #expect(try await client.send(.get, "/v1/me", token: token).jsonObject()["id"] as? String == id)
            let profile = try await client.send(.get, "/v1/users/\(id)").jsonObject()
            #expect(profile["email"] == nil)

            let second = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(Self.claims("001234.apple"))])
            #expect(second.status == .ok)
            #expect(try second.jsonObject()["created"] as? Bool == false)
            #expect((try second.jsonObject()["user"] as? [String: Any])?["id"] as? String == id)

            // The account has no password: password login fails like a wrong password.
            for password in ["", "correct horse", "password123"] {
                let login = try await client.send(.post, "/v1/auth/login", json: ["email": relay, "password": password])
                #expect(login.status == .unauthorized || login.status == .unprocessableContent)
            }
            let login = try await client.send(.post, "/v1/auth/login", json: ["email": "identity:apple:001234.apple", "password": "whatever1"])
            #expect(login.status == .unauthorized)
        }
    }

    @Test("RS256 tokens with several audiences and the provider's name as nickname; Naver by access token")
    func googleAndNaver() async throws {
        let key = try await TestSigningKey.rs256(kid: "google-1")
        try await Self.withProviders([key]) { client, provider in
            let claims = Self.claims(issuer: Self.googleIssuer, email: "kim@gmail.com", name: "김구글")
            let google = try await client.send(.post, "/v1/auth/google", json: ["idToken": try await key.sign(claims)])
            #expect(google.status == .ok)
            #expect((try google.jsonObject()["user"] as? [String: Any])?["nickname"] as? String == "김구글")

            provider.acceptNaverToken("naver-access-1", profile: ["id": "naver-42", "nickname": "네이버친구", "email": "n@naver.com"])
            let naver = try await client.send(.post, "/v1/auth/naver", json: ["accessToken": "naver-access-1"])
            #expect(naver.status == .ok)
            let json = try naver.jsonObject()
            #expect(json["created"] as? Bool == true)
            #expect((json["user"] as? [String: Any])?["nickname"] as? String == "네이버친구")
            let again = try await client.send(.post, "/v1/auth/naver", json: ["accessToken": "naver-access-1"])
            #expect(try again.jsonObject()["created"] as? Bool == false)

            let refused = try await client.send(.post, "/v1/auth/naver", json: ["accessToken": "not-a-naver-token"])
            #expect(refused.status == .unauthorized)
            let missing = try await client.send(.post, "/v1/auth/naver", json: ["idToken": "x"])
            #expect(missing.status == .unprocessableContent)
            #expect(try missing.problemFields() == ["accessToken"])
            let noToken = try await client.send(.post, "/v1/auth/google", json: ["nonce": "n"])
            #expect(try noToken.problemFields() == ["idToken"])
        }
    }

    @Test("a provider's name holding control characters is not a nickname; a Naver id holding one is refused, storing nothing")
    func controlCharactersFromProviders() async throws {
        let key = try await TestSigningKey.rs256(kid: "google-1")
        try await Self.withProviders([key]) { client, provider in
            for name in ["김\u{0}구글", "김구글\u{7}", "김\n구글", "김\u{85}구글", "김\u{7F}구글"] {
                let claims = Self.claims(issuer: Self.googleIssuer, name: name)
                let response = try await client.send(.post, "/v1/auth/google", json: ["idToken": try await key.sign(claims)])
                #expect(response.status == .ok, "\(name.unicodeScalars.map(\.value))")
                let nickname = try #require((try response.jsonObject()["user"] as? [String: Any])?["nickname"] as? String)
                #expect(nickname.hasPrefix("이웃") && nickname.count == 8, "a generated nickname instead of \(nickname.debugDescription)")
            }

            for id in ["naver\u{0}42", "naver-\u{1F}", ""] {
                provider.acceptNaverToken("naver-control", profile: ["id": id, "nickname": "네이버친구"])
                let response = try await client.send(.post, "/v1/auth/naver", json: ["accessToken": "naver-control"])
                #expect(response.status == .unauthorized, "\(id.debugDescription)")
            }
            // Nothing was stored by the refused ids: a good one afterwards creates its account.
            provider.acceptNaverToken("naver-control", profile: ["id": "naver42", "nickname": "네이버친구"])
            let good = try await client.send(.post, "/v1/auth/naver", json: ["accessToken": "naver-control"])
            #expect(good.status == .ok)
            #expect(try good.jsonObject()["created"] as? Bool == true)
        }
    }

    /// A rejection case: how the token is made, and the check the 401 must name.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let check: String
        let claims: TestClaims
        var nonce: String?
        var signedByStranger = false
        var testDescription: String { check }
    }

    static let rejections: [Rejection] = [
        Rejection(check: "signature", claims: claims(), signedByStranger: true),
        Rejection(check: "issuer", claims: claims(issuer: "https://evil.example")),
        Rejection(check: "issuer", claims: claims(issuer: googleIssuer)),
        Rejection(check: "audience", claims: claims(audience: "someone-elses-app")),
        Rejection(check: "expired", claims: claims(expiresIn: -120)),
        Rejection(check: "issued-at", claims: claims(issuedAgo: -3600)),
        Rejection(check: "not-before", claims: claims(validIn: 3600)),
        Rejection(check: "not-before", claims: claims(issuedAgo: 0, validIn: 600)),
        Rejection(check: "nonce", claims: claims(nonce: "expected-nonce"), nonce: "another-nonce"),
        Rejection(check: "nonce", claims: claims(), nonce: "nonce-the-token-lacks"),
        Rejection(check: "subject", claims: claims("")),
        Rejection(check: "subject", claims: claims("001234\u{0}.apple")),
        Rejection(check: "subject", claims: claims("001234\n.apple")),
        Rejection(check: "subject", claims: claims(String(repeating: "7", count: 256))),
    ]

    @Test("a token failing a check is a 401 naming the check, without echoing the token", arguments: rejections)
    func rejection(_ case_: Rejection) async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        let stranger = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, _ in
            let token = try await (case_.signedByStranger ? stranger : key).sign(case_.claims)
            var body = ["idToken": token]
            if let nonce = case_.nonce { body["nonce"] = nonce }
            let response = try await client.send(.post, "/v1/auth/apple", json: body)
            #expect(response.status == .unauthorized)
            let detail = try #require(try response.problem()["detail"] as? String)
            #expect(detail.contains("failed the \(case_.check) check"), "\(detail)")
            let text = String(buffer: response.body)
            #expect(!text.contains(token) && !text.contains(token.split(separator: ".")[1]))
        }
    }

    @Test("a token valid from now or a moment ago (nbf, within the clock skew) is accepted")
    func notBeforeWithinSkew() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, _ in
            for validIn in [-60, 0, 5] {
                let response = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(Self.claims(validIn: validIn))])
                #expect(response.status == .ok, "nbf \(validIn) s from now")
            }
        }
    }

    @Test("after a key-set outage sign-in works again within seconds, and Retry-After says when the next fetch is due")
    func keySetOutage() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        // A first retry five seconds after a failure, doubling: wide enough that a loaded machine (the whole suite on two
        // cores) answers the first two sign-ins before the retry is due.
        let retry = 5
        try await Self.withProviders([key], keyRefetch: .seconds(60), configure: { configuration, _ in
            configuration.signIn.keyRetryDelay = .seconds(retry)
        }) { client, provider in
            func signIn() async throws -> TestResponse {
                try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(Self.claims())])
            }
            provider.setKeySetDown(true)
            let down = try await signIn()
            #expect(down.status == .serviceUnavailable)
            #expect((1...retry).contains(Int(down.headers[.retryAfter] ?? "") ?? 0), "the retry is due in 5 s, not at the minute's refetch")
            let waiting = try await signIn()
            #expect(waiting.status == .serviceUnavailable)
            #expect((1...retry).contains(Int(waiting.headers[.retryAfter] ?? "") ?? 0))
            #expect(provider.jwksFetches == 1, "no fetch before the retry is due")

            try await Task.sleep(for: .seconds(retry) + .milliseconds(100))
            let stillDown = try await signIn()
            #expect(stillDown.status == .serviceUnavailable)
            #expect((retry + 1...2 * retry).contains(Int(stillDown.headers[.retryAfter] ?? "") ?? 0), "the delay doubles while the outage lasts")
            #expect(provider.jwksFetches == 2)

            provider.setKeySetDown(false)
            try await Task.sleep(for: .seconds(2 * retry) + .milliseconds(100))
            #expect(try await signIn().status == .ok, "the provider is back: sign-in works, seconds after, not a minute")
            #expect(provider.jwksFetches == 3)
        }
    }

    @Test("an identity unlinked from the account it created signs in again as a new account, not a 409")
    func unlinkedCreatorSignsInAnew() async throws {
        let key = try await TestSigningKey.rs256(kid: "google-1")
        try await Self.withProviders([key]) { client, provider in
            let googleToken = { try await key.sign(Self.claims("g-creator", issuer: Self.googleIssuer)) }
            let created = try await client.send(.post, "/v1/auth/google", json: ["idToken": try await googleToken()]).jsonObject()
            let token = try #require(created["token"] as? String)
            let firstId = try #require((created["user"] as? [String: Any])?["id"] as? String)
            provider.acceptNaverToken("naver-link", profile: ["id": "n-creator"])
            #expect(try await client.send(.post, "/v1/me/identities/naver", json: ["accessToken": "naver-link"], token: token).status == .created)
            #expect(try await client.send(.delete, "/v1/me/identities/google", token: token).status == .noContent)

            for attempt in 0..<2 {
                let again = try await client.send(.post, "/v1/auth/google", json: ["idToken": try await googleToken()])
                #expect(again.status == .ok, "attempt \(attempt)")
                let json = try again.jsonObject()
                #expect(json["created"] as? Bool == (attempt == 0))
                #expect((json["user"] as? [String: Any])?["id"] as? String != firstId)
            }
            let naver = try await client.send(.post, "/v1/auth/naver", json: ["accessToken": "naver-link"]).jsonObject()
            #expect((naver["user"] as? [String: Any])?["id"] as? String == firstId, "the first account keeps its Naver sign-in")
        }
    }

    @Test("malformed tokens, unsigned tokens and tokens naming no known key fail the signature check")
    func malformed() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, _ in
            let good = try await key.sign(Self.claims())
            let parts = good.split(separator: ".").map(String.init)
            let unsigned = Data(#"{"alg":"none","kid":"apple-1"}"#.utf8).base64URLEncoded + "." + parts[1] + "."
            let hmac = Data(#"{"alg":"HS256","kid":"apple-1"}"#.utf8).base64URLEncoded + "." + parts[1] + "." + parts[2]
            let unknownKid = try await TestSigningKey.es256(kid: "apple-9").sign(Self.claims())
            for token in ["not a jwt", "a.b.c", unsigned, hmac, parts[0] + "." + parts[1] + ".AAAA", unknownKid] {
                let response = try await client.send(.post, "/v1/auth/apple", json: ["idToken": token])
                #expect(response.status == .unauthorized, "\(token)")
                #expect((try response.problem()["detail"] as? String)?.contains("signature check") == true)
            }
        }
    }

    @Test("a new kid refetches the key set (a rotation works, withdrawn keys stop), at most once per interval")
    func keyRotation() async throws {
        let old = try await TestSigningKey.es256(kid: "apple-1")
        let new = try await TestSigningKey.rs256(kid: "apple-2")
        try await Self.withProviders([old], keyRefetch: .zero) { client, provider in
            #expect(try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await old.sign(Self.claims())]).status == .ok)
            #expect(try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await old.sign(Self.claims())]).status == .ok)
            #expect(provider.jwksFetches == 1, "known keys are served from the cache")
            provider.publish([new])
            #expect(try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await new.sign(Self.claims())]).status == .ok)
            #expect(provider.jwksFetches == 2)
            let withdrawn = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await old.sign(Self.claims())])
            #expect(withdrawn.status == .unauthorized)
        }
        try await Self.withProviders([old], keyRefetch: .seconds(60)) { client, provider in
            #expect(try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await old.sign(Self.claims())]).status == .ok)
            provider.publish([old, new])
            for _ in 0..<3 {
                let early = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await new.sign(Self.claims())])
                #expect(early.status == .unauthorized)
            }
            #expect(provider.jwksFetches == 1, "unknown kids refetch at most once a minute")
        }
    }

    @Test("a provider that cannot be reached is a 503 with Retry-After; an unconfigured or unknown provider is a 404")
    func unreachableAndUnconfigured() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key], configure: { configuration, _ in
            // Port 1 on loopback: nothing listens there, the connection is refused at once.
            configuration.signIn.apple.jwksURL = "http://127.0.0.1:1/jwks"
            configuration.signIn.naver.profileURL = "http://127.0.0.1:1/naver/me"
            configuration.signIn.requestTimeout = .seconds(1)
        }) { client, _ in
            for (provider, body) in [("apple", ["idToken": try await key.sign(Self.claims())]), ("naver", ["accessToken": "t"])] {
                let response = try await client.send(.post, "/v1/auth/\(provider)", json: body)
                #expect(response.status == .serviceUnavailable)
                #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 > 0)
                #expect(try response.problem()["status"] as? Int == 503)
            }
            for provider in ["kakao", "facebook", "APPLE"] {
                let response = try await client.send(.post, "/v1/auth/\(provider)", json: ["idToken": "x"])
                #expect(response.status == .notFound, "\(provider)")
                #expect(try response.problem()["status"] as? Int == 404)
            }
            // The fixed routes still win over the provider parameter.
            #expect(try await client.send(.post, "/v1/auth/login", json: ["email": "a@b.co", "password": "password1"]).status == .unauthorized)
        }
    }

    @Test("linking: a password account links providers, one identity per provider, never another account's")
    func linking() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, provider in
            let (token, id) = try await client.signup(email: "linker@example.com")
            let googleToken = try await key.sign(Self.claims("g-1", issuer: Self.googleIssuer, email: "linker@gmail.com"))
            let linked = try await client.send(.post, "/v1/me/identities/google", json: ["idToken": googleToken], token: token)
            #expect(linked.status == .created)
            #expect(try linked.jsonObject()["provider"] as? String == "google")
            #expect(try linked.jsonObject()["email"] as? String == "linker@gmail.com")
            let again = try await client.send(.post, "/v1/me/identities/google", json: ["idToken": googleToken], token: token)
            #expect(again.status == .ok)
            let otherGoogle = try await key.sign(Self.claims("g-2", issuer: Self.googleIssuer))
            #expect(try await client.send(.post, "/v1/me/identities/google", json: ["idToken": otherGoogle], token: token).status == .conflict)

            let list = try await client.send(.get, "/v1/me/identities", token: token).jsonObject()
            #expect(list["hasPassword"] as? Bool == true)
            #expect((list["items"] as? [[String: Any]])?.compactMap { $0["provider"] as? String } == ["google"])
            #expect(list["nextCursor"] is NSNull)

            // Signing in with the linked identity reaches the same account.
            let signIn = try await client.send(.post, "/v1/auth/google", json: ["idToken": googleToken])
            #expect((try signIn.jsonObject()["user"] as? [String: Any])?["id"] as? String == id)

            // Another account cannot take the identity.
            let (otherToken, _) = try await client.signup(email: "other@example.com")
            #expect(try await client.send(.post, "/v1/me/identities/google", json: ["idToken": googleToken], token: otherToken).status == .conflict)

            // Unlinking: the password remains, so it works; twice is a 404.
            #expect(try await client.send(.delete, "/v1/me/identities/google", token: token).status == .noContent)
            #expect(try await client.send(.delete, "/v1/me/identities/google", token: token).status == .notFound)
            #expect(try await client.send(.get, "/v1/me/identities", token: nil).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/me/identities/google", json: ["idToken": googleToken]).status == .unauthorized)
            _ = provider
        }
    }

    @Test("unlinking the last way to sign in is a 422; with another identity linked it works")
    func unlinkingLast() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, provider in
            let signIn = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(Self.claims("a-1"))])
            let token = try #require(try signIn.jsonObject()["token"] as? String)
            let last = try await client.send(.delete, "/v1/me/identities/apple", token: token)
            #expect(last.status == .unprocessableContent)
            #expect(try last.problemFields() == ["provider"])
            #expect(try await client.send(.get, "/v1/me/identities", token: token).jsonObject()["hasPassword"] as? Bool == false)

            provider.acceptNaverToken("naver-access", profile: ["id": "n-1"])
            #expect(try await client.send(.post, "/v1/me/identities/naver", json: ["accessToken": "naver-access"], token: token).status == .created)
            #expect(try await client.send(.delete, "/v1/me/identities/apple", token: token).status == .noContent)
            let items = try await client.send(.get, "/v1/me/identities", token: token).jsonObject()["items"] as? [[String: Any]]
            #expect(items?.compactMap { $0["provider"] as? String } == ["naver"])
            #expect(try await client.send(.delete, "/v1/me/identities/naver", token: token).status == .unprocessableContent)
        }
    }
    @Test("deleting an account a provider created: a fresh sign-in is the proof, the identity goes, the same identity starts anew")
    func deletingProviderAccount() async throws {
        let key = try await TestSigningKey.es256(kid: "apple-1")
        try await Self.withProviders([key]) { client, _ in
            // A password account with the same email must not stand in for the provider account's proof.
            _ = try await client.signup(email: "shared@example.com")
            let claims = Self.claims("apple-delete", email: "shared@example.com")
            let signIn = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(claims)]).jsonObject()
            let token = try #require(signIn["token"] as? String)
            let refreshToken = try #require(signIn["refreshToken"] as? String)
            let id = try #require((signIn["user"] as? [String: Any])?["id"] as? String)

            let deleted = try await client.send(.delete, "/v1/me", token: token)
            #expect(deleted.status == .noContent, "no body: a session started a moment ago proves who the caller is")
            #expect(try await client.send(.get, "/v1/me", token: token).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/auth/refresh", json: ["refreshToken": refreshToken]).status == .unauthorized)

            let again = try await client.send(.post, "/v1/auth/apple", json: ["idToken": try await key.sign(claims)]).jsonObject()
            #expect(again["created"] as? Bool == true, "the identity left with the account")
            #expect((again["user"] as? [String: Any])?["id"] as? String != id)
            let login = try await client.send(.post, "/v1/auth/login", json: ["email": "shared@example.com", "password": "correct horse"])
            #expect(login.status == .ok, "the password account with the same email is untouched")
        }
    }
}
