import Foundation
import Testing
@testable import ClassTodayServer

/// A mail the server wrote to its mail folder (no SMTP server configured), decoded as far as a test needs.
struct FolderMail: Sendable {
    /// The `To` address.
    let to: String
    /// The decoded text part.
    let text: String
    /// The decoded HTML part.
    let html: String

    /// The token in the mail's link, if any.
    var token: String? { text.linkToken }
}

extension ServerEnvironment {
    /// The mails in the mail folder, oldest first (their file names are time-ordered ids).
    func folderMails() -> [FolderMail] {
        let folder = configuration.mailDirectory
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
        return names.compactMap { name in
            (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)).flatMap(Self.decode)
        }
    }

    /// Waits until the folder holds at least `count` mails to `address` and returns the newest.
    func folderMail(to address: String, count: Int = 1) async throws -> FolderMail {
        await eventually { folderMails().filter { $0.to == address }.count >= count }
        return try #require(folderMails().last { $0.to == address }, "no mail to \(address)")
    }

    /// The `To` address and the base64 text and HTML parts of a message written by ``MIMEMessage``.
    private static func decode(_ message: String) -> FolderMail? {
        let lines = message.components(separatedBy: "\r\n")
        guard let to = lines.first(where: { $0.hasPrefix("To: <") }).map({ String($0.dropFirst(5).dropLast()) }) else { return nil }
        func part(_ type: String) -> String {
            guard let start = lines.firstIndex(where: { $0.hasPrefix("Content-Type: \(type)") }),
                  let blank = lines[start...].firstIndex(of: "") else { return "" }
            let body = lines[(blank + 1)...].prefix { !$0.hasPrefix("--") }.joined()
            return Data(base64Encoded: body).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return FolderMail(to: to, text: part("text/plain"), html: part("text/html"))
    }
}
