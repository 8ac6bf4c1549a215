import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Testing

/// A WebSocket client for tests: send JSON frames, await received frames with a timeout.
final class TestSocket: Sendable {
    /// Frames received so far and not yet taken.
    private actor Inbox {
        var frames: [String] = []
        var closed = false
        var closeFrame: WebSocketCloseFrame?

        func append(_ frame: String) { frames.append(frame) }
        func close(_ frame: WebSocketCloseFrame? = nil) {
            closed = true
            closeFrame = closeFrame ?? frame
        }
        func take() -> String? { frames.isEmpty ? nil : frames.removeFirst() }
        func take(type: String) -> String? {
            guard let index = frames.firstIndex(where: { $0.contains("\"type\":\"\(type)\"") }) else { return nil }
            return frames.remove(at: index)
        }
        func isClosed() -> Bool { closed && frames.isEmpty }
    }

    private let inbox = Inbox()
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, any Error>

    private init(url: String, headers: HTTPFields) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        outgoing = continuation
        let inbox = self.inbox
        task = Task {
            defer { Task { await inbox.close() } }
            let closeFrame = try await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers), logger: Logger(label: "test-socket")
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { await inbox.append(text) }
                        }
                    }
                    group.addTask {
                        for await frame in stream { try await outbound.write(.text(frame)) }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
            await inbox.close(closeFrame)
        }
    }

    /// Opens a socket to a live test server with `token` in the Authorization header (or in the query).
    static func connect(port: Int, token: String, inQuery: Bool = false) async throws -> TestSocket {
        let url = "ws://127.0.0.1:\(port)/v1/chat/ws" + (inQuery ? "?token=\(token)" : "")
        let socket = TestSocket(url: url, headers: inQuery ? [:] : [.authorization: "Bearer \(token)"])
        // A ping answered means the upgrade happened and the session is registered.
        socket.send(["type": "ping"])
        _ = try await socket.next(type: "pong")
        return socket
    }

    /// Sends a JSON object frame.
    func send(_ frame: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: frame)) ?? Data()
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }

    /// Sends a raw text frame.
    func sendRaw(_ text: String) {
        outgoing.yield(text)
    }

    /// The next frame, waiting at most `timeout`.
    func next(timeout: Duration = .seconds(15)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = await inbox.take() {
                return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            }
            if await inbox.isClosed() { throw SocketError.closed }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw SocketError.timeout
    }

    /// The first frame of `type`, leaving frames of other types (presence, typing) for later calls.
    func next(type: String, timeout: Duration = .seconds(15)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = await inbox.take(type: type) {
                return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            }
            if await inbox.isClosed() { throw SocketError.closed }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw SocketError.timeout
    }

    /// The `seq` of each message frame: `expected` of them waited for one by one (a loaded machine may take longer than
    /// a drain's window), then those of any more that arrive within `window`, so that a duplicate shows.
    func messageSeqs(expected: Int, window: Duration = .milliseconds(300)) async throws -> [Int] {
        var seqs: [Int] = []
        for _ in 0..<expected { seqs.append(Self.seq(of: try await next(type: "message"))) }
        for frame in await drain(for: window) where frame["type"] as? String == "message" { seqs.append(Self.seq(of: frame)) }
        return seqs
    }

    private static func seq(of frame: [String: Any]) -> Int {
        (frame["message"] as? [String: Any])?["seq"] as? Int ?? -1
    }

    /// Every frame that arrives within `window`.
    func drain(for window: Duration = .milliseconds(300)) async -> [[String: Any]] {
        var frames: [[String: Any]] = []
        while let frame = try? await next(timeout: window) { frames.append(frame) }
        return frames
    }

    /// Whether the server closed the connection within `timeout`.
    func closedByServer(within timeout: Duration = .seconds(15)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await inbox.isClosed() { return true }
            _ = await inbox.take()
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// The code and reason of the close frame the server sent, once the connection has closed.
    var closeFrame: WebSocketCloseFrame? {
        get async { await inbox.closeFrame }
    }

    /// Closes the connection from the client side.
    func close() async {
        outgoing.finish()
        _ = try? await task.value
    }

    enum SocketError: Error {
        case timeout
        case closed
    }
}
