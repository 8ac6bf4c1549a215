import ClassTodayCore
import Foundation
import Logging

/// The transport without an SMTP server (the default): each message is written as `<id>.eml` into a folder, where any
/// mail client opens it, and its link is logged, so that someone running the server locally can finish a password
/// reset or a verification without a mail server. The file starts with an `X-ClassToday-Link` header holding the link
/// as plain text (the body is base64), for scripts and browser tests that read the folder.
struct MailFolderTransport: MailTransport {
    /// The folder the files go to (created when missing).
    let folder: String
    let logger: Logger

    var name: String { "folder \(folder)" }

    func send(_ message: [UInt8], from sender: String, to recipient: String, mail: QueuedMail) async -> MailOutcome {
        let path = (folder as NSString).appendingPathComponent("\(mail.messageId).eml")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let linkHeader = mail.draft.link.map { Array("X-ClassToday-Link: \($0)\r\n".utf8) } ?? []
            try Data(linkHeader + message).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            return .retry(reason: "cannot write \(path)")
        }
        var metadata: Logger.Metadata = ["file": "\(path)", "kind": "\(mail.draft.kind.rawValue)"]
        if let link = mail.draft.link { metadata["link"] = "\(link)" }
        logger.info("mail written to a file (no SMTP server is configured)", metadata: metadata)
        return .sent
    }
}
