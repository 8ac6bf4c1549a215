import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging

/// The chat WebSocket (`GET /v1/chat/ws`): sends with a clientId and waits for the ack, delivers typed events, and
/// reconnects with backoff after a lost connection, asking each room for the messages after the last one it
/// delivered, so that the app sees every message once and in order.
///
/// ```swift
/// let chat = ChatClient(serverURL: url, session: session)
/// await chat.start()
/// Task { for await case .message(let message) in chat.events { show(message) } }
/// let ack = try await chat.send(.text("Hello"), to: roomId)
/// ```
public actor ChatClient {
    /// Settings of a chat client.
    public struct Configuration: Sendable {
        /// Delays between reconnection attempts.
        public var backoff = ReconnectBackoff()
        /// How often the socket is pinged to notice a dead connection.
        public var pingInterval: Duration = .seconds(30)
        /// The largest frame accepted from the server.
        public var maximumFrameBytes = 1 << 20

        /// The default settings.
        public init() {}
    }

    /// Everything the client reports, in order; ends after `stop()`.
    public nonisolated let events: AsyncStream<ChatEvent>

    private let socketURL: String
    private let session: SessionStore
    private let refresher: SessionStore.Refresher
    private let configuration: Configuration
    private let logger: Logger
    private let eventSink: AsyncStream<ChatEvent>.Continuation

    private var sequencer = RoomSequencer()
    private var outbound: WebSocketOutboundWriter?
    private var pendingSends: [String: PendingSend] = [:]
    private var pendingOrder: [String] = []
    private var connectionTask: Task<Void, Never>?
    private var isStopped = false

    /// A send waiting for its ack.
    private struct PendingSend {
        let frame: String
        var waiters: [CheckedContinuation<ChatAck, any Error>]
    }

    /// A chat client of the server at `serverURL` (http or https; the socket uses ws or wss), authenticated with
    /// `session`'s bearer token.
    /// - Parameter refresher: renews the session when the socket's upgrade is refused; by default
    ///   `POST /v1/auth/refresh` on the same server.
    public init(
        serverURL: URL,
        session: SessionStore,
        refresher: SessionStore.Refresher? = nil,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "ClassTodayClient.chat")
    ) {
        var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path = components.path.hasSuffix("/") ? components.path + "v1/chat/ws" : components.path + "/v1/chat/ws"
        socketURL = components.string ?? ""
        (self.session, self.configuration, self.logger) = (session, configuration, logger)
        self.refresher = refresher ?? ClassTodayAPI.makeRefresher(serverURL: serverURL)
        (events, eventSink) = AsyncStream.makeStream(of: ChatEvent.self, bufferingPolicy: .unbounded)
    }

    /// Follows a room whose messages up to `seq` the app already shows (from `GET .../messages`), so that the client
    /// delivers only later ones and asks for them after every reconnect.
    public func follow(roomId: String, after seq: Int) async {
        sequencer.follow(roomId: roomId, after: seq)
        await write(.sync(roomId: roomId, afterSeq: sequencer.lastSeq[roomId] ?? seq))
    }

    /// The last seq delivered in each room.
    public var lastSeenSeq: [String: Int] { sequencer.lastSeq }

    /// Connects, and keeps reconnecting until `stop()`.
    public func start() {
        guard connectionTask == nil, !isStopped else { return }
        connectionTask = Task { await self.keepConnected() }
    }

    /// Closes the socket, stops reconnecting, fails waiting sends and ends `events`.
    public func stop() async {
        isStopped = true
        try? await outbound?.close(.normalClosure, reason: nil)
        connectionTask?.cancel()
        await connectionTask?.value
        connectionTask = nil
        for clientId in pendingOrder {
            pendingSends.removeValue(forKey: clientId)?.waiters.forEach { $0.resume(throwing: ChatClientStopped()) }
        }
        pendingOrder.removeAll()
        eventSink.finish()
    }

    /// Sends a message and returns once the server has durably stored it.
    ///
    /// While the socket is closed the send waits, and it is sent again after every reconnect until acknowledged:
    /// the server stores a clientId once, so a repeated send answers with the first message.
    /// Cancelling the calling task does not withdraw the send; `stop()` ends the wait.
    /// - Parameter clientId: the send's own id; pass the same one to retry a send.
    /// - Throws: `ChatSendError` when the server refuses it, `ChatClientStopped` after `stop()`.
    public func send(_ content: ChatContent, to roomId: String, clientId: String = UUID().uuidString) async throws -> ChatAck {
        guard !isStopped else { throw ChatClientStopped() }
        let frame = try OutgoingChatFrame.send(roomId: roomId, clientId: clientId, content: content).jsonText()
        return try await withCheckedThrowingContinuation { continuation in
            if pendingSends[clientId] == nil {
                pendingSends[clientId] = PendingSend(frame: frame, waiters: [continuation])
                pendingOrder.append(clientId)
                Task { await self.writeText(frame) }
            } else {
                pendingSends[clientId]?.waiters.append(continuation)
            }
        }
    }

    /// Tells the room's members that the user read it up to `seq` (skipped while disconnected).
    public func markRead(roomId: String, seq: Int) async {
        await write(.read(roomId: roomId, seq: seq))
    }

    /// Tells the room's members that the user is typing (skipped while disconnected).
    public func typing(roomId: String) async {
        await write(.typing(roomId: roomId))
    }

    // MARK: - Connection

    private func keepConnected() async {
        var backoff = configuration.backoff
        while !isStopped && !Task.isCancelled {
            let token = await session.accessToken
            do {
                var socketConfiguration = WebSocketClientConfiguration(
                    maxFrameSize: configuration.maximumFrameBytes,
                    autoPing: .enabled(timePeriod: configuration.pingInterval)
                )
                if let token { socketConfiguration.additionalHeaders[.authorization] = "Bearer \(token)" }
                let maximumFrameBytes = configuration.maximumFrameBytes
                try await WebSocketClient.connect(url: socketURL, configuration: socketConfiguration, logger: logger) {
                    inbound, outbound, _ in
                    await self.didConnect(outbound)
                    for try await message in inbound.messages(maxSize: maximumFrameBytes) {
                        if case .text(let text) = message { await self.receive(text) }
                    }
                }
            } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
                // The server answers a missing or expired token with a 401 and no upgrade.
                logger.debug("chat socket upgrade refused")
                if let token { _ = try? await session.token(replacing: token, using: refresher) }
            } catch {
                logger.debug("chat socket closed", metadata: ["error": "\(error)"])
            }
            if outbound != nil { backoff.reset() }
            didDisconnect()
            guard !isStopped else { break }
            try? await Task.sleep(for: backoff.nextDelay())
        }
    }

    private func didConnect(_ writer: WebSocketOutboundWriter) async {
        outbound = writer
        logger.debug("chat socket open")
        eventSink.yield(.connected)
        for (roomId, seq) in sequencer.lastSeq.sorted(by: { $0.key < $1.key }) {
            await write(.sync(roomId: roomId, afterSeq: seq))
        }
        for clientId in pendingOrder {
            if let frame = pendingSends[clientId]?.frame { await writeText(frame) }
        }
    }

    private func didDisconnect() {
        guard outbound != nil else { return }
        outbound = nil
        eventSink.yield(.disconnected)
    }

    // MARK: - Frames

    private func write(_ frame: OutgoingChatFrame) async {
        do {
            await writeText(try frame.jsonText())
        } catch {
            logger.error("chat frame not encoded", metadata: ["error": "\(error)"])
        }
    }

    /// Writes a frame if the socket is open; a lost write is made good after the reconnect (syncs and pending sends).
    private func writeText(_ text: String) async {
        guard let outbound else { return }
        do {
            try await outbound.write(.text(text))
        } catch {
            logger.debug("chat frame not written", metadata: ["error": "\(error)"])
        }
    }

    private func receive(_ text: String) async {
        let frame: IncomingChatFrame
        do {
            frame = try IncomingChatFrame.decode(text)
        } catch {
            logger.warning("chat frame not decoded", metadata: ["error": "\(error)"])
            return
        }
        switch frame {
        case .ack(let ack):
            finishSend(ack.clientId) { $0.resume(returning: ack) }
        case .event(.message(let message)):
            let outcome = sequencer.accept(message)
            outcome.deliver.forEach { eventSink.yield(.message($0)) }
            if let afterSeq = outcome.syncAfter { await write(.sync(roomId: message.roomId, afterSeq: afterSeq)) }
        case .event(let event):
            eventSink.yield(event)
        case .pong:
            break
        case .error(let code, let message, let clientId):
            if let clientId, pendingSends[clientId] != nil {
                let error = ChatSendError(code: code, message: message, clientId: clientId)
                finishSend(clientId) { $0.resume(throwing: error) }
            } else {
                eventSink.yield(.error(code: code, message: message))
            }
        case .unknown(let type):
            logger.debug("chat frame of an unknown type skipped", metadata: ["type": "\(type)"])
        }
    }

    private func finishSend(_ clientId: String, _ resume: (CheckedContinuation<ChatAck, any Error>) -> Void) {
        guard let pending = pendingSends.removeValue(forKey: clientId) else { return }
        pendingOrder.removeAll { $0 == clientId }
        pending.waiters.forEach(resume)
    }
}
