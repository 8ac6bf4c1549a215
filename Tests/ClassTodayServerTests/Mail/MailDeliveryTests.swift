import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import ClassTodayServer

/// Mail delivery to a real SMTP server on loopback (``SMTPTestServer``), its mails decoded as a mail client would.
@Suite("Mail delivery over SMTP", .enabled(if: SMTPTestServer.isAvailable, SMTPTestServer.unavailableReason))
struct MailDeliveryTests {
    @Test("a reset goes end to end over STARTTLS and AUTH PLAIN, in Korean, as multipart text and HTML")
    func resetOverSTARTTLS() async throws {
        try await SMTPTestServer.run(security: .starttls) { smtp in
            try await TestServer.withEnvironment(.router, configure: smtp.configure) { _, client in
                let email = "kim-\(UUID().uuidString.prefix(8))@example.com"
                let signup = try await client.send(.post, "/v1/auth/signup", json: ["email": email, "password": "correct horse", "nickname": "김선생"],
                                                   headers: [.acceptLanguage: "ko-KR,ko;q=0.9"])
                #expect(signup.status == .created)
                #expect(try await client.send(.post, "/v1/auth/password-reset", json: ["email": email]).status == .accepted)
                let mails = try await smtp.waitForMails(2)
                let verification = mails[0], reset = mails[1]
                #expect(verification.subject == "[오늘의 클래스] 이메일 주소를 확인해 주세요")
                #expect(reset.subject == "[오늘의 클래스] 비밀번호 재설정 안내")
                for mail in mails {
                    #expect(mail.authenticated && mail.tls)
                    #expect(mail.rcptTos == [email] && mail.to.contains(email))
                    #expect(mail.mailFrom == "no-reply@classtoday.test")
                    #expect(mail.from == "ClassToday <no-reply@classtoday.test>")
                    #expect(mail.contentType == "multipart/alternative")
                    #expect(mail.messageId.hasSuffix("@classtoday.test>"))
                    #expect(mail.date.hasSuffix("+0000"))
                    #expect(mail.longestLine <= 78 && mail.bareLineFeeds == 0 && mail.defects.isEmpty)
                }
                #expect(verification.messageId != reset.messageId)
                let text = try #require(reset.text), html = try #require(reset.html)
                #expect(text.contains("김선생님, 안녕하세요."))
                let token = try #require(reset.token)
                #expect(text.contains("재설정 코드: \(token)"))
                #expect(html.contains("href=\"https://classtoday.test/console#reset-password?token=\(token)\""))
                let confirmed = try await client.send(.post, "/v1/auth/password-reset/confirm", json: ["token": token, "newPassword": "새 비밀번호입니다"])
                #expect(confirmed.status == .ok)
                #expect(try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": "새 비밀번호입니다"]).status == .ok)
            }
        }
    }

    @Test("implicit TLS with AUTH LOGIN carries an English verification mail")
    func verificationOverImplicitTLS() async throws {
        try await SMTPTestServer.run(security: .tls, authMechanism: "LOGIN") { smtp in
            try await TestServer.withEnvironment(.router, configure: smtp.configure) { _, client in
                let email = "lee-\(UUID().uuidString.prefix(8))@example.com"
                let signup = try await client.send(.post, "/v1/auth/signup", json: [
                    "email": email, "password": "correct horse", "nickname": "Lee <b>&", "locale": "en",
                ])
                let token = try #require(try signup.jsonObject()["token"] as? String)
                let mail = try #require(try await smtp.waitForMails(1).first)
                #expect(mail.authenticated && mail.tls)
                #expect(mail.subject == "[ClassToday] Confirm your email address")
                #expect(try #require(mail.html).contains("Hello Lee &lt;b&gt;&amp;,"), "values are escaped in HTML")
                #expect(try await client.send(.post, "/v1/auth/verify-email", json: ["token": try #require(mail.token)]).status == .noContent)
                #expect(try await client.send(.get, "/v1/me", token: token).jsonObject()["emailVerified"] as? Bool == true)
            }
        }
    }

    @Test("a mail committed while nothing delivers (a node killed between commit and send) goes once, later")
    func outboxSurvivesACrash() async throws {
        try await SMTPTestServer.run { smtp in
            try await TestServer.withEnvironment(.router, configure: { configuration in
                smtp.configure(&configuration)
                configuration.mail.deliveryEnabled = false
            }) { environment, client in
                #expect(try await client.send(.post, "/v1/auth/password-reset", json: ["email": "nobody@example.com"]).status == .accepted)
                let (_, _) = try await client.signup(email: "crash@example.com")
                #expect(try await environment.mailQueue.count() == 1)
                try await Task.sleep(for: .milliseconds(300))
                #expect(smtp.tries() == 0, "nothing was sent")

                var settings = environment.configuration.mail
                settings.deliveryEnabled = true
                // A fresh node's delivery service over the same database.
                let fresh = MailDeliveryService(queue: environment.mailQueue, transport: environment.mailTransport, settings: settings,
                                                metrics: environment.metrics, logger: Logger(label: "test"))
                await fresh.drain()
                await fresh.drain()
                let mails = try await smtp.waitForMails(1)
                #expect(mails.count == 1 && mails[0].rcptTos == ["crash@example.com"])
                #expect(smtp.tries() == 1)
                #expect(try await environment.mailQueue.count() == 0)
            }
        }
    }

    @Test("a server that refuses for good (5xx) gets one try; the mail is given up and counted")
    func permanentRefusal() async throws {
        try await SMTPTestServer.run(refuse: 550) { smtp in
            try await TestServer.withEnvironment(.router, configure: smtp.configure) { environment, client in
                let (_, _) = try await client.signup(email: "refused@example.com")
                #expect(await eventually { (try? await environment.mailQueue.count()) == 0 })
                try await Task.sleep(for: .milliseconds(300))
                #expect(smtp.tries() == 1)
                #expect(try smtp.mails().isEmpty)
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                #expect(metrics.contains(#"mail_failed_total{kind="email-verification"} 1"#))
            }
        }
    }

    @Test("a server that refuses for now (4xx) is tried again until it accepts")
    func temporaryRefusal() async throws {
        try await SMTPTestServer.run(refuse: 451, refuseFirst: 2) { smtp in
            try await TestServer.withEnvironment(.router, configure: smtp.configure) { environment, client in
                let (_, _) = try await client.signup(email: "later@example.com")
                let mails = try await smtp.waitForMails(1)
                #expect(mails.count == 1)
                #expect(smtp.tries() == 3)
                #expect(await eventually { (try? await environment.mailQueue.count()) == 0 })
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                #expect(metrics.contains(#"mail_retried_total{kind="email-verification"} 2"#))
                #expect(metrics.contains(#"mail_sent_total{kind="email-verification"} 1"#))
            }
        }
    }

    @Test("a server whose certificate is not trusted gets nothing: TLS is always verified")
    func untrustedCertificate() async throws {
        try await SMTPTestServer.run { smtp in
            try await TestServer.withEnvironment(.router, configure: { configuration in
                smtp.configure(&configuration)
                configuration.mail.trustedCAPath = nil
            }) { environment, client in
                let (_, _) = try await client.signup(email: "untrusted@example.com")
                #expect(try await eventually { String(buffer: try await client.send(.get, "/metrics").body).contains("mail_retried_total") })
                #expect(smtp.tries() == 0)
                #expect(try await environment.mailQueue.count() == 1)
            }
        }
    }
}
