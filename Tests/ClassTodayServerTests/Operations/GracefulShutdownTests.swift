import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing
@testable import ClassTodayServer

/// A server told to stop (SIGTERM, in `serve`) finishes what it is answering, then ends every connection and exits,
/// whatever state its connections are in. A browser keeps sockets it opened ahead of time and never used; those
/// held the server's exit until the browser closed them.
@Suite("Graceful shutdown")
struct GracefulShutdownTests {
    @Test("shutting down lets an in-flight request finish before the server stops")
    func drainsInFlightRequests() async throws {
        // A high bcrypt cost makes signup take long enough to still be running when shutdown begins.
        let configuration = try TestServer.configuration { $0.bcryptCost = 13 }
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let app = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let inFlight = Mutex<Task<TestClient.Response, any Error>?>(nil)
        let started = ContinuousClock.now
        try await app.runTest(.live) { client in
            let port = try #require(client.port)
            let body = ByteBuffer(string: #"{"email":"drain@example.com","password":"password123","nickname":"drain"}"#)
            let request = Task {
                try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(60))) { other in
                    try await other.post("/v1/auth/signup", headers: [.contentType: "application/json"], body: body)
                }
            }
            inFlight.withLock { $0 = request }
            try await Task.sleep(for: .milliseconds(150))
            // Returning from the test closure triggers the application's graceful shutdown.
        }
        let request = try #require(inFlight.withLock { $0 })
        let response = try await request.value
        #expect(response.status == .created)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// How long a stop may take here: generous, since the whole suite shares two cores (without the fix, a connection
    /// that sent nothing held the stop for as long as the client kept it).
    static let stopLimit = Duration.seconds(60)

    /// The grace these tests give a connection mid-request, long beside ``closedWithAnswer`` so that a connection closed
    /// by the grace cannot pass for one closed with its answer, however slowly the shared cores run the test.
    static let longGrace = Duration.seconds(60)

    /// The longest a connection closed because of its answer stays open after the answer: the close is written with it.
    /// A connection the grace closes instead stays open ``longGrace`` after the stop.
    static let closedWithAnswer = Duration.seconds(20)

    @Test("a connection that never sent a byte is closed and the server stops")
    func silentConnection() async throws {
        try await RunningServer.run { server in
            let exchange = try await RawConnection.connected(port: server.port, within: .seconds(120)) { _, inbound in
                try await server.waitUntilAccepted()
                await server.stop()
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                return exchange
            }
            #expect(exchange.sawEndOfStream, "the server kept a connection that had sent nothing")
            #expect(exchange.received.isEmpty)
            #expect(await server.hasStopped(within: Self.stopLimit))
        }
    }

    @Test("a request half sent when the server stops, or answered before it, gets its answer, then its connection is closed",
          arguments: [StopMoment.whileTheRequestIsHalfSent, .onceAnswered])
    func answeredThenClosed(moment: StopMoment) async throws {
        try await RunningServer.run(shutdownGrace: Self.longGrace) { server in
            let (exchange, openAfterAnswer) = try await Self.health(server, stopping: moment)
            #expect(exchange.status == 200)
            #expect(exchange.text.contains(RawConnection.healthAnswer))
            #expect(exchange.sawEndOfStream, "the answered connection was kept open")
            if moment == .whileTheRequestIsHalfSent {
                #expect(openAfterAnswer < Self.closedWithAnswer, "the grace period closed the connection, not its answer")
            }
            #expect(await server.hasStopped(within: Self.stopLimit))
        }
    }

    @Test("a connection still sending its request when the server stops is cut off after the grace, its request refused")
    func unfinishedRequestCutOff() async throws {
        let grace = Duration.seconds(1)
        try await RunningServer.run(shutdownGrace: grace) { server in
            let openAfterStop = Mutex(Duration.zero)
            let exchange = try await RawConnection.connected(port: server.port, within: .seconds(120)) { channel, inbound in
                try await channel.writeAndFlush(ByteBuffer(string: RawConnection.healthHead))
                try await server.waitUntilAccepted()
                let stopped = ContinuousClock.now
                await server.stop()
                var exchange = RawExchange()
                await exchange.receiveToEnd(inbound)
                openAfterStop.withLock { $0 = ContinuousClock.now - stopped }
                return exchange
            }
            #expect(exchange.sawEndOfStream, "the unfinished request held its connection")
            // The grace ends the input as the client's close would: the unfinished head is answered as malformed.
            #expect(exchange.status == 400)
            #expect(openAfterStop.withLock { $0 } >= grace, "the connection was closed before its grace ran out")
            #expect(await server.hasStopped(within: Self.stopLimit))
        }
    }

    /// When ``health(_:stopping:)`` stops the server.
    enum StopMoment: Sendable {
        case whileTheRequestIsHalfSent
        case onceAnswered
    }

    /// Asks `/health` on a raw connection, stops the server at `moment`, and reads until the server ends the stream;
    /// also returns how long the connection stayed open after the answer arrived.
    static func health(_ server: RunningServer, stopping moment: StopMoment) async throws -> (RawExchange, openAfterAnswer: Duration) {
        let openAfterAnswer = Mutex(Duration.zero)
        let exchange = try await RawConnection.connected(port: server.port, within: .seconds(120)) { channel, inbound in
            switch moment {
            case .whileTheRequestIsHalfSent:
                try await channel.writeAndFlush(ByteBuffer(string: RawConnection.healthHead))
                try await server.waitUntilAccepted()
                await server.stop()
                try await Task.sleep(for: .milliseconds(200))
                try await channel.writeAndFlush(ByteBuffer(string: "\r\n"))
            case .onceAnswered:
                try await channel.writeAndFlush(ByteBuffer(string: RawConnection.healthRequest))
            }
            var exchange = RawExchange()
            var buffers = inbound.makeAsyncIterator()
            try await exchange.receive(until: RawConnection.healthAnswer, from: &buffers)
            let answered = ContinuousClock.now
            if moment == .onceAnswered { await server.stop() }
            await exchange.receiveToEnd(&buffers)
            openAfterAnswer.withLock { $0 = ContinuousClock.now - answered }
            return exchange
        }
        return (exchange, openAfterAnswer.withLock { $0 })
    }
}

/// The real application on a free loopback port, in a service group the test stops when it chooses.
final class RunningServer: Sendable {
    /// The port it listens on.
    let port: Int
    private let group: ServiceGroup
    private let stopped: Flag

    /// Set once, when the service group's run returns.
    final class Flag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    private init(port: Int, group: ServiceGroup, stopped: Flag) {
        self.port = port
        self.group = group
        self.stopped = stopped
    }

    /// Runs `body` with a started server whose connections get `shutdownGrace` to finish a request once it stops; then
    /// stops it if `body` did not, and waits until it has stopped.
    static func run(shutdownGrace: Duration = .seconds(10), _ body: @Sendable (RunningServer) async throws -> Void) async throws {
        let configuration = try TestServer.configuration { $0.shutdownGrace = shutdownGrace }
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let environment = try await ServerEnvironment.open(configuration, logger: logger)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = buildApplication(environment, logger: logger) { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
        }
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let stopped = Flag()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await group.run()
                stopped.set()
            }
            defer { tasks.addTask { await group.triggerGracefulShutdown() } }
            var reported = ports.makeAsyncIterator()
            let port = await reported.next() ?? 0
            try #require(port > 0, "the server reported no port")
            try await body(RunningServer(port: port, group: group, stopped: stopped))
        }
    }

    /// Gives the server time to take a connection the kernel already accepted off its queue.
    func waitUntilAccepted() async throws {
        try await Task.sleep(for: .milliseconds(300))
    }

    /// Starts a graceful shutdown, as SIGTERM does in `serve`.
    func stop() async {
        await group.triggerGracefulShutdown()
    }

    /// Whether the server has stopped, waiting up to `limit` for it.
    func hasStopped(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !stopped.isSet, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return stopped.isSet
    }
}
