import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
@testable import ClassTodayServer

/// A connection that sends no request for the idle timeout, or cannot finish its first request head within it
/// (slowloris), is closed; a connection in use, a request still being answered and a WebSocket are not.
///
/// The server closes on its own event loop's clock. These tests measure on the client side from a moment before the
/// server's clock starts (before connecting, before asking), since a busy test run can observe an answer or an end
/// of stream late but never early; and they send timed bytes from the client's event loop rather than from tasks,
/// which the rest of the suite can keep waiting for seconds.
@Suite("Idle connections")
struct IdleConnectionTests {
    /// The idle timeout these tests run the server with.
    static let timeout = Duration.seconds(2)

    /// Runs `body` with a live server whose idle timeout is `idleTimeout` (``timeout`` unless told), and its port.
    static func withServer(
        idleTimeout: Duration = timeout, bcryptCost: Int? = nil, _ body: @Sendable (Int, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await TestServer.withLiveServer(configure: { configuration in
            configuration.idleConnectionTimeout = idleTimeout
            if let bcryptCost { configuration.bcryptCost = bcryptCost }
        }) { client in
            try await body(try #require(client.port), client)
        }
    }

    @Test("a connection that sends nothing is closed once the idle timeout has passed, not before")
    func silent() async throws {
        try await Self.withServer { port, _ in
            let opened = ContinuousClock.now
            let exchange = try await RawConnection.connected(port: port, within: .seconds(60)) { _, inbound in
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                return exchange
            }
            #expect(exchange.sawEndOfStream, "the server kept a connection that never sent a request")
            #expect(exchange.received.isEmpty)
            #expect(ContinuousClock.now - opened >= Self.timeout)
        }
    }

    @Test("a request head sent a line at a time, never finished, is closed at the idle timeout without an answer")
    func trickledHead() async throws {
        try await Self.withServer { port, _ in
            // Without a deadline for the head, the lines keep coming until the client's own 60-second limit.
            let exchange = try await RawConnection.connected(port: port, within: .seconds(60)) { channel, inbound in
                let trickle = Task {
                    try await channel.writeAndFlush(ByteBuffer(string: RawConnection.healthHead))
                    for line in 0..<250 {
                        try await Task.sleep(for: .milliseconds(200))
                        try await channel.writeAndFlush(ByteBuffer(string: "X-Slow-\(line): 1\r\n"))
                    }
                }
                defer { trickle.cancel() }
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                return exchange
            }
            #expect(exchange.sawEndOfStream, "a head trickling in held its connection open")
            #expect(exchange.text.isEmpty, "an unfinished head got an answer: \(exchange.text.debugDescription)")
        }
    }

    @Test("a kept-alive connection is closed the idle timeout after its last answer, not before")
    func idleAfterAnswer() async throws {
        try await Self.withServer { port, _ in
            let asked = ContinuousClock.now
            let request = ByteBuffer(string: RawConnection.healthRequest)
            let exchange = try await RawConnection.connected(port: port, within: .seconds(60), onConnect: { channel in
                Self.send([request], every: .zero, on: channel)
            }) { _, inbound in
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                return exchange
            }
            #expect(exchange.status == 200)
            #expect(exchange.sawEndOfStream, "an idle kept-alive connection stayed open")
            // The answer was written after the question was asked, and the idle time counts from the answer.
            #expect(ContinuousClock.now - asked >= Self.timeout)
        }
    }

    @Test("a connection asking every 300 ms stays open for longer than the idle timeout")
    func inUse() async throws {
        try await Self.withServer { port, _ in
            let requests = 9
            let request = ByteBuffer(string: RawConnection.healthRequest)
            let exchange = try await RawConnection.connected(port: port, within: .seconds(60), onConnect: { channel in
                Self.send(Array(repeating: request, count: requests), every: .milliseconds(300), on: channel)
            }) { _, inbound in
                var exchange = RawExchange()
                var buffers = inbound.makeAsyncIterator()
                while RawConnection.healthAnswers(in: exchange.text) < requests {
                    guard let buffer = try await buffers.next() else {
                        exchange.sawEndOfStream = true
                        break
                    }
                    exchange.received += buffer.readableBytesView
                }
                return exchange
            }
            #expect(!exchange.sawEndOfStream, "a connection in use was closed")
            #expect(RawConnection.healthAnswers(in: exchange.text) == requests)
        }
    }

    @Test("a request body whose parts come more often than the idle timeout is read whole and answered")
    func slowBody() async throws {
        try await Self.withServer { port, _ in
            let body = Array(#"{"email":"slow@example.com","password":"correct horse"}"#.utf8)
            let parts = stride(from: 0, to: body.count, by: 8).map { ByteBuffer(bytes: body[$0..<min($0 + 8, body.count)]) }
            let interval = TimeAmount.milliseconds(400)
            try #require(Duration(interval) * parts.count > Self.timeout, "the body must take longer than the idle timeout")
            let head = RawConnection.postHead("/v1/auth/login", contentLength: body.count, connectionClose: true)
            let exchange = try await RawConnection.connected(port: port, within: .seconds(60), onConnect: { channel in
                Self.send([head] + parts, every: interval, on: channel)
            }) { _, inbound in
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                return exchange
            }
            #expect(exchange.status == 401, "\(exchange.text.debugDescription)")
        }
    }

    @Test("a request that takes longer than the idle timeout to answer is answered on its connection")
    func slowAnswer() async throws {
        // A signup hashes its password at bcrypt cost 16: about four seconds in a debug build, against a 3 s timeout.
        let idleTimeout = Duration.seconds(3)
        try await Self.withServer(idleTimeout: idleTimeout, bcryptCost: 16) { port, _ in
            let body = #"{"email":"slow-answer@example.com","password":"correct horse","nickname":"느린답"}"#
            let took = Mutex(Duration.zero)
            let head = RawConnection.postHead("/v1/auth/signup", contentLength: body.utf8.count, connectionClose: true)
            let request = [head, ByteBuffer(string: body)]
            let exchange = try await RawConnection.connected(port: port, within: .seconds(120), onConnect: { channel in
                Self.send(request, every: .zero, on: channel)
            }) { _, inbound in
                // The request is on its way by now, so this undercounts the server's time.
                let sent = ContinuousClock.now
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                took.withLock { $0 = ContinuousClock.now - sent }
                return exchange
            }
            #expect(exchange.status == 201, "\(exchange.text.debugDescription)")
            #expect(took.withLock { $0 } > idleTimeout, "the answer came too fast to show anything: raise the bcrypt cost")
        }
    }

    @Test("a WebSocket with nothing to say stays open past the idle timeout")
    func quietWebSocket() async throws {
        try await Self.withServer { port, client in
            let user = try await client.signup(nickname: "조용한")
            let socket = try await TestSocket.connect(port: port, token: user.token)
            try await Task.sleep(for: Self.timeout * 2)
            socket.send(["type": "ping"])
            #expect(try await socket.next(type: "pong")["type"] as? String == "pong")
            await socket.close()
        }
    }

    /// Writes `buffers` on `channel`, the first at once and each next one `interval` later, timed on the channel's
    /// event loop.
    static func send(_ buffers: [ByteBuffer], every interval: TimeAmount, on channel: any Channel) {
        for (index, buffer) in buffers.enumerated() {
            channel.eventLoop.scheduleTask(in: interval * Int64(index)) { channel.writeAndFlush(buffer, promise: nil) }
        }
    }
}
