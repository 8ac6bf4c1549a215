import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

/// Terms of service: signup records the accepted version; `GET /v1/me` says whether it is still the current one.
@Suite("Terms")
struct TermsTests {
    @Test("signup records the current version, sent or not; another version is a 422 naming termsVersion")
    func signupRecordsTerms() async throws {
        try await TestServer.withRouter(configure: { $0.termsVersion = "2026-11-01" }) { client in
            let sent = try await client.send(.post, "/v1/auth/signup", json: [
                "email": "a@example.com", "password": "correct horse", "nickname": "가", "termsVersion": "2026-11-01",
            ])
            #expect(sent.status == .created)
            let user = try #require(try sent.jsonObject()["user"] as? [String: Any])
            #expect(user["termsAccepted"] as? String == "2026-11-01")
            #expect(user["termsUpToDate"] as? Bool == true)

            let omitted = try await client.signup()
            let me = try await client.send(.get, "/v1/me", token: omitted.token).jsonObject()
            #expect(me["termsAccepted"] as? String == "2026-11-01")
            #expect(me["termsUpToDate"] as? Bool == true)

            let stale = try await client.send(.post, "/v1/auth/signup", json: [
                "email": "b@example.com", "password": "correct horse", "nickname": "나", "termsVersion": "2025-01-01",
            ])
            #expect(stale.status == .unprocessableContent)
            #expect(try stale.problemFields() == ["termsVersion"])
        }
    }

    @Test("after the configured version changes, GET /v1/me says the terms are out of date until they are accepted again")
    func versionChange() async throws {
        let configuration = try TestServer.configuration { $0.termsVersion = "2026-11-01" }
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let token = try await buildApplication(configuration, logger: logger).test(.router) { client in
            try await client.signup().token
        }
        var changed = configuration
        changed.termsVersion = "2027-03-01"
        try await buildApplication(changed, logger: logger).test(.router) { client in
            let me = try await client.send(.get, "/v1/me", token: token).jsonObject()
            #expect(me["termsAccepted"] as? String == "2026-11-01")
            #expect(me["termsUpToDate"] as? Bool == false)

            let old = try await client.send(.patch, "/v1/me", json: ["termsVersion": "2026-11-01"], token: token)
            #expect(try old.problemFields() == ["termsVersion"])
            let accepted = try await client.send(.patch, "/v1/me", json: ["termsVersion": "2027-03-01"], token: token)
            #expect(accepted.status == .ok)
            let after = try await client.send(.get, "/v1/me", token: token).jsonObject()
            #expect(after["termsAccepted"] as? String == "2027-03-01")
            #expect(after["termsUpToDate"] as? Bool == true)
        }
    }
}
