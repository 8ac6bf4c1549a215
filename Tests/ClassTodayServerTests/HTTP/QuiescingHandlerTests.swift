import NIOCore
import NIOEmbedded
import Testing
@testable import ClassTodayServer

/// How a connection ends when the server stops, on an embedded channel with a virtual clock.
@Suite("Quiescing connections")
struct QuiescingHandlerTests {
    /// Counts the stop events that reach the handlers behind.
    final class QuiesceCounter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        nonisolated(unsafe) var count = 0

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { count += 1 }
            context.fireUserInboundEventTriggered(event)
        }
    }

    static func channel() async throws -> (EmbeddedChannel, QuiesceCounter) {
        let counter = QuiesceCounter()
        let channel = EmbeddedChannel(handlers: [QuiescingHandler(grace: .seconds(10)), counter])
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return (channel, counter)
    }

    @Test("a connection that has sent nothing is closed at once")
    func silent() async throws {
        let (channel, counter) = try await Self.channel()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!channel.isActive)
        #expect(counter.count == 0)
    }

    @Test("a connection that has sent bytes hears the stop, again after each read, and is closed after the grace period")
    func started() async throws {
        let (channel, counter) = try await Self.channel()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(channel.isActive)
        #expect(counter.count == 1)
        try channel.writeInbound(ByteBuffer(string: "Host: a\r\n"))
        #expect(counter.count == 2, "a read after the stop passes the stop on again, for handlers added since")
        #expect(channel.closesExactly(after: .seconds(10)))
    }

    @Test("before the stop, bytes and events pass through untouched")
    func passesThrough() async throws {
        let (channel, counter) = try await Self.channel()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        #expect(counter.count == 0)
    }
}
