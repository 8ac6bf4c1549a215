import NIOCore
import NIOEmbedded
import Testing
@testable import ClassTodayServer

/// The bounds of a lingering close, on an embedded channel with a virtual clock.
@Suite("Lingering close")
struct LingeringCloseHandlerTests {
    /// Stands in for the socket's half-close, which an embedded channel does not have (it closes entirely).
    final class HalfCloseStandIn: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = ByteBuffer

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            guard mode == .output else {
                context.close(mode: mode, promise: promise)
                return
            }
            promise?.succeed(())
        }
    }

    /// A connected embedded channel with the handler, lingering within `limits` once started.
    static func channel(_ limits: LingeringCloseHandler.Limits = .init(), started: Bool = true) async throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handlers: [HalfCloseStandIn(), LingeringCloseHandler(limits: limits)])
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        if started { try await channel.triggerUserOutboundEvent(LingeringCloseHandler.Start()).get() }
        return channel
    }

    @Test("until it starts, bytes pass through")
    func passesThrough() async throws {
        let channel = try await Self.channel(started: false)
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
    }

    @Test("once started, bytes are discarded, and it closes after the byte limit")
    func byteLimit() async throws {
        var limits = LingeringCloseHandler.Limits()
        limits.maximumBytes = 100
        let channel = try await Self.channel(limits)
        try channel.writeInbound(ByteBuffer(repeating: 1, count: 60))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(channel.isActive)
        try channel.writeInbound(ByteBuffer(repeating: 1, count: 60))
        #expect(!channel.isActive)
    }

    @Test("it closes when the client is quiet for the idle timeout")
    func idleTimeout() async throws {
        let channel = try await Self.channel()
        let quarter = TimeAmount.nanoseconds(LingeringCloseHandler.Limits().idleTimeout.nanoseconds / 4)
        channel.embeddedEventLoop.advanceTime(by: quarter * 3)
        try channel.writeInbound(ByteBuffer(repeating: 1, count: 10))
        channel.embeddedEventLoop.advanceTime(by: quarter * 3)
        #expect(channel.isActive, "a read restarts the idle timeout")
        channel.embeddedEventLoop.advanceTime(by: quarter * 2)
        #expect(!channel.isActive)
    }

    @Test("it closes after the maximum duration even while the client keeps sending")
    func maximumDuration() async throws {
        let channel = try await Self.channel()
        let seconds = LingeringCloseHandler.Limits().maximumDuration.nanoseconds / 1_000_000_000
        for _ in 0..<(seconds - 1) {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try channel.writeInbound(ByteBuffer(repeating: 1, count: 10))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("it closes as soon as the client ends its side")
    func clientEnds() async throws {
        let channel = try await Self.channel()
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!channel.isActive)
    }
}
