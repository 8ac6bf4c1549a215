import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import ClassTodayServer

/// The first request head's deadline, on an embedded channel with a virtual clock: what counts is the head leaving the
/// parser, however long what follows (a WebSocket upgrade checking its token, the answer) takes.
@Suite("First request head deadline")
struct RequestHeadDeadlineHandlerTests {
    static func channel() async throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handlers: [RequestHeadDeadlineHandler(deadline: .seconds(75))])
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return channel
    }

    static let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/chat/ws"))

    @Test("a connection whose head has not arrived is closed at the deadline, not before")
    func noHead() async throws {
        let channel = try await Self.channel()
        #expect(channel.closesExactly(after: .seconds(75)))
    }

    @Test("once the head has passed, the handler leaves and the connection outlives the deadline")
    func headArrived() async throws {
        let channel = try await Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(74))
        try channel.writeInbound(Self.head)
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == Self.head)
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: RequestHeadDeadlineHandler.self) }
        channel.embeddedEventLoop.advanceTime(by: .seconds(3600))
        #expect(channel.isActive)
    }
}
