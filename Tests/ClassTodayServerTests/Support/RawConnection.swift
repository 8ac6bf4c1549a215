import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// What one raw exchange with the server produced.
struct RawExchange: Sendable {
    /// Every byte the server sent.
    var received: [UInt8] = []
    /// Whether the server ended its side (EOF) before the time limit.
    var sawEndOfStream = false
    /// Whether the time limit ended the exchange.
    var timedOut = false
    /// Whether sending failed (the server closed or reset the connection while the client was still sending).
    var sendFailed = false

    /// The received bytes as text (the status line and headers are ASCII).
    var text: String { String(decoding: received, as: UTF8.self) }

    /// The status code of the first response, if one arrived.
    var status: Int? {
        guard text.hasPrefix("HTTP/1.1 "), text.count >= 12 else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// The header block of the first response, lowercased.
    var headers: String { (text.components(separatedBy: "\r\n\r\n").first ?? "").lowercased() }

    /// Adds what `inbound` yields until the server ends the stream (or the connection fails or is closed).
    mutating func receiveToEnd(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) async {
        var buffers = inbound.makeAsyncIterator()
        await receiveToEnd(&buffers)
    }

    /// Adds what `buffers` yields until the server ends the stream (or the connection fails or is closed).
    mutating func receiveToEnd(_ buffers: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) async {
        do {
            while let buffer = try await buffers.next() { received += buffer.readableBytesView }
            sawEndOfStream = true
        } catch {
            sawEndOfStream = false
        }
    }

    /// Adds what `buffers` yields until the text received holds `expected` or the stream ends.
    mutating func receive(until expected: String, from buffers: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) async throws {
        while !text.contains(expected), let buffer = try await buffers.next() { received += buffer.readableBytesView }
    }
}

/// A plain TCP client for requests no HTTP client would send, or would send more politely. Every exchange runs
/// under a time limit, so a server that never answers or never closes fails the test promptly instead of hanging it.
enum RawConnection {
    /// Connects to the server on `127.0.0.1:port`, sends `chunks` in order the way urllib does (everything first,
    /// waiting whenever the server stops reading), then reads until the server ends the stream, all within `limit`.
    static func exchange(port: Int, sending chunks: some Sequence<ByteBuffer> & Sendable, within limit: Duration = .seconds(10)) async throws -> RawExchange {
        try await connected(port: port, within: limit) { channel, inbound in
            var exchange = RawExchange()
            do {
                // Each write waits until the kernel took the bytes, as a blocking send does.
                for chunk in chunks { try await channel.writeAndFlush(chunk) }
            } catch {
                exchange.sendFailed = true
            }
            await exchange.receiveToEnd(inbound)
            return exchange
        }
    }

    /// Sends each step's bytes in turn on one connection, each once the previous step's `until` holds for the text
    /// received so far, and returns after the last step's `until` holds, the server ends the stream or `limit` passes.
    /// Proves what a keep-alive connection does next without waiting out a time limit.
    static func exchange(port: Int, steps: [(send: String, until: @Sendable (String) -> Bool)], within limit: Duration = .seconds(30)) async throws -> RawExchange {
        try await connected(port: port, within: limit) { channel, inbound in
            var exchange = RawExchange()
            var received = inbound.makeAsyncIterator()
            for step in steps {
                try await channel.writeAndFlush(ByteBuffer(string: step.send))
                while !step.until(exchange.text) {
                    guard let buffer = try await received.next() else {
                        exchange.sawEndOfStream = true
                        return exchange
                    }
                    exchange.received += buffer.readableBytesView
                }
            }
            return exchange
        }
    }

    /// Runs `body` on a new connection to `127.0.0.1:port` that is closed after `limit`, and returns its exchange
    /// with ``RawExchange/timedOut`` set (an end of stream the time limit caused does not count as the server's).
    ///
    /// `onConnect` runs on the connection's event loop the moment it connects, before `body`: what must reach the
    /// server within its deadline for a new connection's first request is written there, since a task can be kept
    /// waiting for seconds while the whole suite runs.
    static func connected(
        port: Int, within limit: Duration, onConnect: (@Sendable (any Channel) -> Void)? = nil,
        _ body: @Sendable (any Channel, NIOAsyncChannelInboundStream<ByteBuffer>) async throws -> RawExchange
    ) async throws -> RawExchange {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let onConnect { try channel.pipeline.syncOperations.addHandler(ConnectHook(onConnect)) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let timedOut = Mutex(false)
        let timer = Task {
            try await Task.sleep(for: limit)
            timedOut.withLock { $0 = true }
            try? await channel.channel.close()
        }
        defer { timer.cancel() }
        var exchange = (try? await channel.executeThenClose { inbound, _ in try await body(channel.channel, inbound) }) ?? RawExchange()
        exchange.timedOut = timedOut.withLock { $0 }
        exchange.sawEndOfStream = exchange.sawEndOfStream && !exchange.timedOut
        return exchange
    }

    /// Sends the text `request` (bytes as written, including any control characters) and reads until EOF.
    static func exchange(port: Int, request: [UInt8], within limit: Duration = .seconds(10)) async throws -> RawExchange {
        try await exchange(port: port, sending: [ByteBuffer(bytes: request)], within: limit)
    }

    /// A `GET /health` request head on a kept-alive connection, without the blank line that ends it.
    static let healthHead = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    /// A whole `GET /health` request.
    static let healthRequest = healthHead + "\r\n"
    /// How the body of `/health`'s answer starts (`imageVariants` follows).
    static let healthAnswer = #"{"status":"ok","#

    /// How many answers of `/health` `text` holds.
    static func healthAnswers(in text: String) -> Int {
        text.components(separatedBy: healthAnswer).count - 1
    }

    /// A request head announcing `contentLength` bytes of JSON body to `path`.
    static func postHead(_ path: String, contentLength: Int, connectionClose: Bool) -> ByteBuffer {
        ByteBuffer(string: "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   + "Content-Length: \(contentLength)\r\n" + (connectionClose ? "Connection: close\r\n" : "") + "\r\n")
    }

    /// `count` bytes of body in chunks of `chunkSize` bytes (1 MiB, the size of a blocking client's large `send`).
    static func body(bytes count: Int, chunkSize: Int = 1 << 20) -> [ByteBuffer] {
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: chunkSize)
        return stride(from: 0, to: count, by: chunk.readableBytes).map { offset in
            chunk.getSlice(at: 0, length: min(chunk.readableBytes, count - offset)) ?? chunk
        }
    }

    /// Runs its closure once its connection becomes active, then leaves the pipeline.
    private final class ConnectHook: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        private let onConnect: @Sendable (any Channel) -> Void

        init(_ onConnect: @escaping @Sendable (any Channel) -> Void) { self.onConnect = onConnect }

        func channelActive(context: ChannelHandlerContext) {
            context.fireChannelActive()
            onConnect(context.channel)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
