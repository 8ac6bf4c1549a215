import ClassTodayCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// An SMTP client (RFC 5321) sending one mail per connection: STARTTLS (RFC 3207) or implicit TLS, always verified,
/// then `AUTH PLAIN` or `AUTH LOGIN` (RFC 4954) when a user is configured, `MAIL FROM`, `RCPT TO` and `DATA` with the
/// message dot-stuffed (section 4.5.2). A 2xx/3xx reply goes on, 4xx is a failure to retry, 5xx a failure for good; a
/// connection that cannot be made, breaks or outlasts the timeout is retried too.
struct SMTPClient: MailTransport {
    /// Where and how to connect.
    let settings: MailSettings
    /// The TLS context: the system's roots plus the configured CA file.
    private let tls: NIOSSLContext
    private let logger: Logger

    /// A client for `settings.smtpHost`; throws when the CA file cannot be read.
    init(settings: MailSettings, logger: Logger) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        if let path = settings.trustedCAPath { configuration.additionalTrustRoots = [.file(path)] }
        self.tls = try NIOSSLContext(configuration: configuration)
        self.settings = settings
        self.logger = logger
    }

    var name: String { "smtp \(settings.smtpHost ?? "-"):\(settings.resolvedPort) \(settings.security.rawValue)" }

    /// The longest line SMTP carries, without its CRLF (RFC 5321 section 4.5.3.1.6).
    static let maximumLineBytes = 998

    /// A failure during the conversation.
    private enum Failure: Error {
        /// Worth trying again later.
        case transient(String)
        /// Not worth trying again.
        case permanent(String)
    }

    func send(_ message: [UInt8], from sender: String, to recipient: String, mail: QueuedMail) async -> MailOutcome {
        guard let host = settings.smtpHost else { return .failed(reason: "no SMTP host") }
        let data: ByteBuffer
        do {
            data = try Self.transparentData(message)
        } catch {
            return .failed(reason: "the message breaks SMTP's line rules")
        }
        let (replies, continuation) = AsyncThrowingStream.makeStream(of: SMTPReply.self)
        let channel: any Channel
        do {
            channel = try await connect(host: host, replies: continuation)
        } catch {
            return .retry(reason: "cannot connect to \(host):\(settings.resolvedPort): \(Self.describe(error))")
        }
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(settings.timeout)) { channel.close(promise: nil) }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        var conversation = Conversation(channel: channel, replies: replies.makeAsyncIterator())
        do {
            try await converse(&conversation, host: host, sender: sender, recipient: recipient, data: data)
            return .sent
        } catch Failure.permanent(let reason) {
            return .failed(reason: reason)
        } catch Failure.transient(let reason) {
            return .retry(reason: reason)
        } catch {
            return .retry(reason: "the conversation broke off: \(Self.describe(error))")
        }
    }

    /// Opens the TCP connection (with TLS from the start in ``SMTPSecurity/tls`` mode).
    private func connect(host: String, replies: AsyncThrowingStream<SMTPReply, any Error>.Continuation) async throws -> any Channel {
        let implicitTLS = settings.security == .tls ? try tlsHandler(host: host) : nil
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let implicitTLS { try channel.pipeline.syncOperations.addHandler(implicitTLS) }
                    try channel.pipeline.syncOperations.addHandler(SMTPReplyDecoder(replies: replies))
                }
            }
            .connect(host: host, port: settings.resolvedPort).get()
    }

    /// A TLS handler verifying the server as `host` (by its IP address when `host` is one: SNI cannot carry those).
    private func tlsHandler(host: String) throws -> NIOSSLClientHandler {
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host)
    }

    /// The whole conversation, from the greeting to QUIT.
    private func converse(_ conversation: inout Conversation, host: String, sender: String, recipient: String, data: ByteBuffer) async throws {
        try await conversation.expect(220, "greeting")
        var extensions = try await hello(&conversation)
        if settings.security == .starttls {
            guard extensions.contains(where: { $0.uppercased() == "STARTTLS" }) else {
                throw Failure.transient("the server does not offer STARTTLS")
            }
            try await conversation.command("STARTTLS", expecting: 220)
            let channel = conversation.channel
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(try tlsHandler(host: host), position: .first)
            }.get()
            extensions = try await hello(&conversation)
        }
        if let user = settings.user, let password = settings.password {
            try await authenticate(&conversation, user: user, password: password, extensions: extensions)
        }
        try await conversation.command("MAIL FROM:<\(sender)>", expecting: 250)
        try await conversation.command("RCPT TO:<\(recipient)>", expecting: 250, 251)
        try await conversation.command("DATA", expecting: 354)
        try await conversation.send(data)
        try await conversation.expect(250, "end of data")
        // The mail is accepted; a QUIT that goes wrong changes nothing.
        try? await conversation.command("QUIT", expecting: 221)
    }

    /// `EHLO`, returning the extensions the server lists (`STARTTLS`, `AUTH PLAIN LOGIN`, ...).
    private func hello(_ conversation: inout Conversation) async throws -> [String] {
        let reply = try await conversation.command("EHLO \(Self.clientName(for: settings.fromAddress))", expecting: 250)
        return Array(reply.lines.dropFirst())
    }

    /// `AUTH PLAIN` when offered, else `AUTH LOGIN`.
    private func authenticate(_ conversation: inout Conversation, user: String, password: String, extensions: [String]) async throws {
        let mechanisms = Set(extensions.filter { $0.uppercased().hasPrefix("AUTH") }
            .flatMap { $0.uppercased().dropFirst(4).split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init) })
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") {
            try await conversation.command("AUTH PLAIN " + base64("\0\(user)\0\(password)"), expecting: 235, redacted: "AUTH PLAIN")
        } else if mechanisms.contains("LOGIN") {
            try await conversation.command("AUTH LOGIN", expecting: 334)
            try await conversation.command(base64(user), expecting: 334, redacted: "the user name")
            try await conversation.command(base64(password), expecting: 235, redacted: "the password")
        } else {
            throw Failure.permanent("the server offers neither AUTH PLAIN nor AUTH LOGIN")
        }
    }

    /// The name the client gives in `EHLO`: the domain of the sender's address.
    static func clientName(for sender: String) -> String {
        sender.split(separator: "@").last.map(String.init) ?? "localhost"
    }

    /// The error thrown for a message that SMTP cannot carry as it is.
    struct UnsendableMessage: Error {}

    /// `message` as DATA sends it: every line ends with CRLF (a bare CR or LF is refused), no line is longer than
    /// ``maximumLineBytes``, a line starting with `.` gets another in front (dot-stuffing), and `.` CRLF ends it.
    static func transparentData(_ message: [UInt8]) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(message.count + message.count / 64 + 5)
        var lineStart = 0
        var index = 0
        while index < message.count {
            let byte = message[index]
            if byte == UInt8(ascii: "\r") {
                guard index + 1 < message.count, message[index + 1] == UInt8(ascii: "\n") else { throw UnsendableMessage() }
                guard index - lineStart <= maximumLineBytes else { throw UnsendableMessage() }
                if message[lineStart..<index].first == UInt8(ascii: ".") { buffer.writeInteger(UInt8(ascii: ".")) }
                buffer.writeBytes(message[lineStart..<index + 2])
                index += 2
                lineStart = index
            } else if byte == UInt8(ascii: "\n") {
                throw UnsendableMessage()
            } else {
                index += 1
            }
        }
        if lineStart < message.count {
            guard message.count - lineStart <= maximumLineBytes else { throw UnsendableMessage() }
            if message[lineStart] == UInt8(ascii: ".") { buffer.writeInteger(UInt8(ascii: ".")) }
            buffer.writeBytes(message[lineStart...])
            buffer.writeString("\r\n")
        }
        buffer.writeString(".\r\n")
        return buffer
    }

    /// An error in words for a failure reason, without anything a log should not hold.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOSSLError: "TLS: \(error)"
        case let error as BoringSSLError: "TLS: \(error)"
        case let error as NIOSSLExtraError: "TLS: \(error)"
        case is SMTPReplyDecoder.MalformedReply: "the server's reply is not SMTP"
        default: String(describing: type(of: error))
        }
    }

    /// One connection's commands and replies.
    private struct Conversation {
        let channel: any Channel
        var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator

        /// Sends `line` and CRLF, and reads the reply, which must have one of `codes` (4xx throws a transient failure,
        /// anything else a permanent one). `redacted` names the command in failure reasons instead of its text.
        @discardableResult
        mutating func command(_ line: String, expecting codes: Int..., redacted: String? = nil) async throws -> SMTPReply {
            try await send(ByteBuffer(string: line + "\r\n"))
            let name = redacted ?? String(line.prefix { $0 != ":" && $0 != " " })
            return try await expect(codes, name)
        }

        /// Writes `bytes`.
        func send(_ bytes: ByteBuffer) async throws {
            try await channel.writeAndFlush(bytes).get()
        }

        /// Reads the next reply, which must have `code`.
        @discardableResult
        mutating func expect(_ code: Int, _ name: String) async throws -> SMTPReply {
            try await expect([code], name)
        }

        private mutating func expect(_ codes: [Int], _ name: String) async throws -> SMTPReply {
            guard let reply = try await replies.next() else { throw Failure.transient("the server closed the connection after \(name)") }
            guard codes.contains(reply.code) else {
                let reason = "\(name): \(reply.summary)"
                throw reply.isTransient ? Failure.transient(reason) : Failure.permanent(reason)
            }
            return reply
        }
    }
}
