import ClassTodayCore
import Foundation
import NIOCore
import Testing
@testable import ClassTodayServer

@Suite("MIME messages and SMTP data")
struct MIMEMessageTests {
    static func mail(subject: String, text: String = "본문\n둘째 줄", html: String = "<p>본문</p>") -> QueuedMail {
        QueuedMail(id: "1", draft: MailDraft(kind: .passwordReset, to: "kim@example.com", subject: subject, text: text, html: html),
                   messageId: "01abc", queuedAt: Date(timeIntervalSince1970: 1_795_000_000), attempts: 1)
    }

    @Test("Korean subjects become encoded words that decode back, folded, with every line CRLF and short")
    func koreanSubject() throws {
        let subject = "[오늘의 클래스] " + String(repeating: "비밀번호 재설정 안내 ", count: 5) + "👩‍👩‍👧"
        let message = String(decoding: MIMEMessage.render(Self.mail(subject: subject), fromName: "ClassToday", fromAddress: "no-reply@classtoday.test"),
                             as: UTF8.self)
        let lines = message.components(separatedBy: "\r\n")
        #expect(!message.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(lines.allSatisfy { $0.utf8.count <= 78 })
        let start = try #require(lines.firstIndex { $0.hasPrefix("Subject: ") })
        let folded = [String(lines[start].dropFirst(9))] + lines[(start + 1)...].prefix { $0.hasPrefix(" ") }.map { String($0.dropFirst()) }
        #expect(folded.count > 1)
        var bytes: [UInt8] = []
        for word in folded {
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?=") && word.count <= 75)
            let decoded = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            #expect(String(data: decoded, encoding: .utf8) != nil, "no word splits a character")
            bytes += decoded
        }
        #expect(String(decoding: bytes, as: UTF8.self) == subject)
        #expect(lines.contains("Date: Wed, 18 Nov 2026 11:06:40 +0000"))
        #expect(lines.contains("Message-ID: <01abc@classtoday.test>"))
        #expect(lines.contains("From: \"ClassToday\" <no-reply@classtoday.test>"))
    }

    @Test("a plain ASCII subject stays as it is; a header-breaking one cannot break out")
    func asciiSubject() {
        #expect(MIMEMessage.header("Subject", "Reset your password") == ["Subject: Reset your password"])
        let injected = MIMEMessage.header("Subject", "hi\r\nBcc: victim@example.com")
        #expect(injected.allSatisfy { !$0.contains("\r") && !$0.contains("\n") && !$0.contains("Bcc:") })
    }

    @Test("DATA is dot-stuffed, ends with a lone dot, and refuses bare line feeds and lines over 998 bytes")
    func transparency() throws {
        let data = try SMTPClient.transparentData(Array("a\r\n.b\r\n..\r\n.".utf8))
        #expect(String(buffer: data) == "a\r\n..b\r\n...\r\n..\r\n.\r\n")
        #expect(throws: SMTPClient.UnsendableMessage.self) { try SMTPClient.transparentData(Array("a\nb\r\n".utf8)) }
        #expect(throws: SMTPClient.UnsendableMessage.self) { try SMTPClient.transparentData(Array("a\rb\r\n".utf8)) }
        #expect(throws: SMTPClient.UnsendableMessage.self) {
            try SMTPClient.transparentData(Array((String(repeating: "x", count: 999) + "\r\n").utf8))
        }
        #expect((try? SMTPClient.transparentData(Array((String(repeating: "x", count: 998) + "\r\n").utf8))) != nil)
    }

    @Test("long bodies are base64 in lines of 76 and decode back to CRLF text")
    func bodies() throws {
        let text = String(repeating: "가나다라마바사 ", count: 200) + "\n끝"
        let message = String(decoding: MIMEMessage.render(Self.mail(subject: "s", text: text), fromName: "오늘의 클래스", fromAddress: "a@b.co"),
                             as: UTF8.self)
        let lines = message.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 || $0.hasPrefix("Content-Type") || $0.hasPrefix("From") || $0.hasPrefix("This is") })
        #expect(lines.first { $0.hasPrefix("From: ") }?.contains("=?UTF-8?B?") == true)
        let start = try #require(lines.firstIndex(of: "Content-Type: text/plain; charset=utf-8"))
        let body = lines[(start + 3)...].prefix { !$0.hasPrefix("--") }.joined()
        #expect(String(decoding: try #require(Data(base64Encoded: body)), as: UTF8.self) == text.replacingOccurrences(of: "\n", with: "\r\n"))
    }

    @Test("Accept-Language picks the best supported language", arguments: [
        ("en-US,en;q=0.9,ko;q=0.8", UserLocale.english), ("ko-KR", .korean), ("fr, en;q=0.2, ko;q=0.5", .korean),
        ("*", nil), ("en;q=0", nil), ("", nil),
    ] as [(String, UserLocale?)])
    func acceptLanguage(header: String, locale: UserLocale?) {
        #expect(UserLocale(acceptLanguage: header) == locale)
    }

    @Test("constant-time comparison agrees with ==")
    func constantTime() {
        for (a, b) in [("abc", "abc"), ("abc", "abd"), ("abc", "ab"), ("", ""), ("", "a"), ("가", "가")] {
            #expect(ConstantTime.equals(a, b) == (a == b))
        }
    }
}
