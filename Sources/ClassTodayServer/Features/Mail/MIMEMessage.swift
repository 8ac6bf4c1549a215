import ClassTodayCore
import Foundation

/// Writes a queued mail as an RFC 5322 message: `From`, `To`, `Subject` (RFC 2047 encoded words when it is not plain
/// ASCII), `Date`, `Message-ID`, and a MIME `multipart/alternative` body (RFC 2046) of a UTF-8 text part and a UTF-8
/// HTML part, each base64 in lines of 76 characters. Every line ends with CRLF and none is longer than 78 characters,
/// whatever the text; nothing a user typed reaches a header.
enum MIMEMessage {
    /// The message's bytes, sent by `fromName` <`fromAddress`>; the `Message-ID` is the mail's id at the sender's domain.
    static func render(_ mail: QueuedMail, fromName: String, fromAddress: String) -> [UInt8] {
        let domain = SMTPClient.clientName(for: fromAddress)
        let boundary = "=_classtoday_" + mail.messageId
        var lines = [
            "From: \(displayName(fromName)) <\(fromAddress)>",
            "To: <\(mail.draft.to)>",
        ]
        lines += header("Subject", mail.draft.subject)
        lines += [
            "Date: \(date(mail.queuedAt))",
            "Message-ID: <\(mail.messageId)@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative;",
            " boundary=\"\(boundary)\"",
            "",
            "This is a MIME message in two parts: plain text and HTML.",
        ]
        for (type, body) in [("text/plain", mail.draft.text), ("text/html", mail.draft.html)] {
            lines += [
                "--" + boundary,
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += base64Lines(canonical(body))
        }
        lines.append("--" + boundary + "--")
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// `text` with every line break as CRLF (MIME's canonical form of text).
    static func canonical(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
    }

    /// The base64 of `text`'s UTF-8 in lines of 76 characters.
    static func base64Lines(_ text: String) -> [String] {
        let encoded = Data(text.utf8).base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
        }
    }

    /// A header's lines: `Name: value` when the value is short printable ASCII, otherwise RFC 2047 `B` encoded words
    /// of at most 39 UTF-8 bytes each (never splitting a character), folded one per line.
    static func header(_ name: String, _ value: String) -> [String] {
        let printable = value.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }
        if printable, name.count + 2 + value.utf8.count <= 78, !value.contains("=?") {
            return ["\(name): \(value)"]
        }
        return encodedWords(value).enumerated().map { index, word in index == 0 ? "\(name): \(word)" : " " + word }
    }

    /// `text` as RFC 2047 encoded words (`=?UTF-8?B?...?=`), each at most 64 characters: with `Subject: ` before the
    /// first, every line stays within 78.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text where !character.isNewline {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 39, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes.prefix(39)
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words
    }

    /// The display name of `From`: a quoted string when it is printable ASCII, encoded words otherwise.
    private static func displayName(_ name: String) -> String {
        let plain = name.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }
        return plain ? "\"\(name)\"" : encodedWords(name).joined(separator: " ")
    }

    /// `date` as RFC 5322 writes dates, in UTC: `Tue, 22 Nov 2026 09:30:00 +0000`.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
