import NIOCore

/// A reply of an SMTP server (RFC 5321 section 4.2): a three-digit code and one or more lines of text.
struct SMTPReply: Sendable, Equatable {
    /// The reply code (`250`, `354`, `451`, `550`).
    let code: Int
    /// The text of each line, without the code and separator.
    let lines: [String]

    /// 4yz: the command failed for now; the same mail may go later.
    var isTransient: Bool { (400..<500).contains(code) }

    /// The reply as one line for logs and failure reasons (`550 5.7.1 refused`).
    var summary: String { "\(code) " + lines.joined(separator: " / ") }
}

/// Splits the server's bytes into CRLF lines and groups them into ``SMTPReply`` values (`250-...` lines continue a
/// reply, `250 ...` ends it), handing each whole reply to `replies`. A line longer than ``maximumLineBytes`` or a
/// malformed one ends the stream with an error; so does the connection closing.
final class SMTPReplyDecoder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// The longest reply line accepted (RFC 5321 allows 512 bytes; servers' greeting banners run longer).
    static let maximumLineBytes = 4096

    /// The error the stream ends with for bytes that are not SMTP replies.
    struct MalformedReply: Error {}

    private let replies: AsyncThrowingStream<SMTPReply, any Error>.Continuation
    private var buffer = ByteBuffer()
    private var lines: [String] = []

    /// A decoder yielding to `replies`.
    init(replies: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
        self.replies = replies
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        while let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = end - buffer.readerIndex
            guard var line = buffer.readString(length: length) else { break }
            buffer.moveReaderIndex(forwardBy: 1)
            if line.hasSuffix("\r") { line.removeLast() }
            guard accept(line) else {
                replies.finish(throwing: MalformedReply())
                context.close(promise: nil)
                return
            }
        }
        if buffer.readableBytes > Self.maximumLineBytes {
            replies.finish(throwing: MalformedReply())
            context.close(promise: nil)
        }
        buffer.discardReadBytes()
    }

    /// Adds one line; false when it is not part of a reply.
    private func accept(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, bytes.count <= Self.maximumLineBytes, bytes[0...2].allSatisfy({ (0x30...0x39).contains($0) }),
              let code = Int(String(decoding: bytes[0...2], as: UTF8.self))
        else { return false }
        let separator = bytes.count > 3 ? bytes[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else { return false }
        lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        if separator == UInt8(ascii: " ") {
            replies.yield(SMTPReply(code: code, lines: lines))
            lines = []
        }
        return true
    }

    func channelInactive(context: ChannelHandlerContext) {
        replies.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        replies.finish(throwing: error)
        context.close(promise: nil)
    }
}
