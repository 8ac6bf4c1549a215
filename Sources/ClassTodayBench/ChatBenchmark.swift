import ClassTodayCore
import AsyncHTTPClient
import ClassTodayServer
import ClassTodaySeed
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// `classtoday-bench chat`: a load client, in its own process, for a running server on loopback. It signs up
/// users, opens rooms, connects WebSockets, sends at a fixed rate and checks every delivery: lost, duplicated and
/// out-of-order messages, send-to-delivery latency, and the server's resident memory per connection. Given several
/// nodes, the two members of each room connect to different ones, so that every delivery crosses nodes.
public struct ChatBenchmark: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// The nodes' base URLs; REST setup goes to the first, memory is measured on the first.
        public var urls = ["http://127.0.0.1:8080"]
        public var connections = 5000
        public var rooms = 2500
        public var rate = 2000
        public var seconds = 60
        public var serverPID: Int32?

        /// The defaults: 5,000 connections over 2,500 rooms, 2,000 messages a second for 60 seconds.
        public init() {}
    }

    /// One socket of the benchmark: which user, which room, and its outgoing frames.
    final class Connection: Sendable {
        let index: Int
        /// The node's WebSocket URL.
        let socketURL: String
        let userId: String
        let token: String
        let roomId: String
        let outgoing: AsyncStream<String>.Continuation
        let frames: AsyncStream<String>

        init(index: Int, socketURL: String, userId: String, token: String, roomId: String) {
            self.index = index
            self.socketURL = socketURL
            self.userId = userId
            self.token = token
            self.roomId = roomId
            (frames, outgoing) = AsyncStream.makeStream(of: String.self)
        }
    }

    /// What the benchmark counts, shared by every connection's reader.
    final class Tally: Sendable {
        struct State {
            var sentAt: [String: ContinuousClock.Instant] = [:]
            var sent = 0
            var acked = 0
            var delivered = 0
            var duplicated = 0
            var outOfOrder = 0
            var errors = 0
            var pongs = 0
            var latencies = LatencySample()
            /// Latencies by the window of the run in which the message was sent.
            var windows: [Int: LatencySample] = [:]
            var started = ContinuousClock.now
            /// Per (connection, room): seqs seen, to tell duplicates from reordering.
            var seen: [Int: Set<Int>] = [:]
            var lastSeq: [Int: Int] = [:]
            var expectedDeliveries = 0
        }

        let state = Mutex(State())
    }

    let options: Options
    let http = HTTPClient.shared
    let logger: Logger

    /// A benchmark of `options`, logging to `logger`.
    public init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs the benchmark and returns the report's lines.
    public func run() async throws -> [String] {
        let pid = options.serverPID ?? Self.listeningProcess(port: URL(string: options.urls[0])?.port ?? 8080)
        let connections = try await setUp()
        let membersPerRoom = Dictionary(grouping: connections, by: \.roomId)
        let before = pid.flatMap(Self.residentKiB)
        let tally = Tally()
        return try await withThrowingTaskGroup(of: Void.self, returning: [String].self) { group in
            let connecting = ContinuousClock.now
            for connection in connections {
                group.addTask { try await self.serve(connection, tally: tally) }
            }
            // Let every socket connect and the server finish taking them, then measure idle memory.
            try await waitUntilServed(connections, tally: tally)
            let ready = ContinuousClock.now - connecting
            try await Task.sleep(for: .seconds(2))
            let idle = pid.flatMap(Self.residentKiB)
            tally.state.withLock { state in
                state.errors = 0
                state.started = .now
            }
            try await send(connections, members: membersPerRoom, tally: tally)
            try await Task.sleep(for: .seconds(3)) // drain
            let end = pid.flatMap(Self.residentKiB)
            for connection in connections { connection.outgoing.finish() }
            group.cancelAll()
            let socketsOnFirstNode = connections.filter { $0.socketURL == connections.first?.socketURL }.count
            return lines(tally: tally, ready: ready, socketsOnFirstNode: socketsOnFirstNode, before: before, idle: idle, end: end)
        }
    }

    // MARK: Setup

    private func setUp() async throws -> [Connection] {
        let userCount = options.rooms * 2
        let suffix = UUID().uuidString.prefix(8)
        var users: [(id: String, token: String)] = Array(repeating: ("", ""), count: userCount)
        try await forEachConcurrently(0..<userCount, width: 32) { index in
            let json = try await post("/v1/auth/signup", ["email": "bench-\(suffix)-\(index)@bench.classtoday.app",
                                                           "password": "bench-password", "nickname": "bench\(index)"], token: nil)
            let user = json["user"] as? [String: Any]
            return (index, (user?["id"] as? String ?? "", json["token"] as? String ?? ""))
        } collect: { users[$0] = $1 }
        var roomIds = Array(repeating: "", count: options.rooms)
        let members = users
        try await forEachConcurrently(0..<options.rooms, width: 32) { room in
            let seller = members[room * 2], buyer = members[room * 2 + 1]
            let listing = try await post("/v1/classes", ["type": "sell", "name": "벤치 수업 \(room)"], token: seller.token)
            let opened = try await post("/v1/chat/rooms", ["classId": listing["id"] as? String ?? ""], token: buyer.token)
            return (room, opened["id"] as? String ?? "")
        } collect: { roomIds[$0] = $1 }
        return (0..<options.connections).map { index in
            let room = index % options.rooms
            let side = (index / options.rooms) % 2
            let member = users[room * 2 + side]
            let node = options.urls[side % options.urls.count]
            return Connection(index: index, socketURL: node.replacingOccurrences(of: "http://", with: "ws://") + "/v1/chat/ws",
                              userId: member.id, token: member.token, roomId: roomIds[room])
        }
    }

    private func post(_ path: String, _ body: [String: Any], token: String?) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: options.urls[0] + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw BenchError.setup("\(path) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return (try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
    }

    private func forEachConcurrently<Value: Sendable>(
        _ range: Range<Int>, width: Int, _ work: @escaping @Sendable (Int) async throws -> (Int, Value),
        collect: (Int, Value) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Value).self) { group in
            var next = range.lowerBound
            while next < min(range.upperBound, range.lowerBound + width) {
                let index = next
                group.addTask { try await work(index) }
                next += 1
            }
            while let (index, value) = try await group.next() {
                collect(index, value)
                if next < range.upperBound {
                    let index = next
                    group.addTask { try await work(index) }
                    next += 1
                }
            }
        }
    }

    // MARK: Sockets

    private func serve(_ connection: Connection, tally: Tally) async throws {
        _ = try await WebSocketClient.connect(
            url: connection.socketURL, configuration: .init(maxFrameSize: 1 << 16, additionalHeaders: [.authorization: "Bearer \(connection.token)"]),
            logger: logger
        ) { inbound, outbound, _ in
            Self.connected.add(1, ordering: .relaxed)
            defer { Self.connected.subtract(1, ordering: .relaxed) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        if case .text(let text) = message { self.receive(text, on: connection, tally: tally) }
                    }
                }
                group.addTask {
                    for await frame in connection.frames { try await outbound.write(.text(frame)) }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    private static let connected = Atomic<Int>(0)

    /// Waits until every socket is connected and has answered a ping. A server answers a connection's frames only
    /// once it has taken the connection (presence, rooms), so sending starts after that work, not during it.
    private func waitUntilServed(_ connections: [Connection], tally: Tally) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        func wait(until done: () -> Bool, _ failure: @autoclosure () -> String) async throws {
            while !done() {
                guard ContinuousClock.now < deadline else { throw BenchError.setup(failure()) }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        try await wait(until: { Self.connected.load(ordering: .relaxed) >= connections.count },
                       "only \(Self.connected.load(ordering: .relaxed)) of \(connections.count) sockets connected")
        for connection in connections { connection.outgoing.yield(#"{"type":"ping"}"#) }
        try await wait(until: { tally.state.withLock { $0.pongs } >= connections.count },
                       "only \(tally.state.withLock { $0.pongs }) of \(connections.count) sockets answered a ping")
    }

    /// The fields of a server frame that the benchmark checks.
    private struct Frame: Decodable {
        struct Message: Decodable {
            let seq: Int
            let senderId: String
            let clientId: String?
        }

        let type: String
        let message: Message?
    }

    private func receive(_ text: String, on connection: Connection, tally: Tally) {
        guard let frame = try? JSONDecoder().decode(Frame.self, from: Data(text.utf8)) else { return }
        let now = ContinuousClock.now
        tally.state.withLock { state in
            switch frame.type {
            case "ack":
                state.acked += 1
            case "pong":
                state.pongs += 1
            case "message":
                guard let message = frame.message else { return }
                let seq = message.seq
                let key = connection.index
                if state.seen[key, default: []].contains(seq) {
                    state.duplicated += 1
                    return
                }
                state.seen[key, default: []].insert(seq)
                if seq < state.lastSeq[key, default: 0] { state.outOfOrder += 1 }
                state.lastSeq[key] = max(seq, state.lastSeq[key, default: 0])
                if message.senderId != connection.userId, let clientId = message.clientId, let sentAt = state.sentAt[clientId] {
                    state.delivered += 1
                    let latency = now - sentAt
                    state.latencies.record(latency)
                    state.windows[Int((sentAt - state.started).components.seconds) / Self.window, default: LatencySample()].record(latency)
                }
            case "error":
                state.errors += 1
            default:
                break
            }
        }
    }

    private func send(_ connections: [Connection], members: [String: [Connection]], tally: Tally) async throws {
        let perTick = Double(options.rate) / 100
        var owed = 0.0
        var counter = 0
        let end = ContinuousClock.now + .seconds(options.seconds)
        var next = ContinuousClock.now
        while ContinuousClock.now < end {
            owed += perTick
            while owed >= 1 {
                owed -= 1
                let connection = connections[counter % connections.count]
                let clientId = "b\(counter)"
                let recipients = (members[connection.roomId] ?? []).filter { $0.userId != connection.userId }.count
                tally.state.withLock { state in
                    state.sentAt[clientId] = ContinuousClock.now
                    state.sent += 1
                    state.expectedDeliveries += recipients
                }
                connection.outgoing.yield(#"{"type":"send","roomId":"\#(connection.roomId)","clientId":"\#(clientId)","text":"bench \#(counter)"}"#)
                counter += 1
            }
            next = next + .milliseconds(10)
            try await Task.sleep(until: next, clock: .continuous)
        }
    }

    // MARK: Report

    private func lines(tally: Tally, ready: Duration, socketsOnFirstNode: Int, before: Int?, idle: Int?, end: Int?) -> [String] {
        tally.state.withLock { state in
            func percentile(_ fraction: Double) -> String { LatencySample.format(state.latencies.percentile(fraction), decimals: 1) }
            let windows = state.windows.sorted { $0.key < $1.key }.map { LatencySample.format($0.value.percentile(0.99), decimals: 1) }
            let lost = max(0, state.expectedDeliveries - state.delivered)
            var lines = [
                "chat benchmark: \(options.connections) connections over \(options.rooms) rooms, \(options.rate) messages/s for \(options.seconds) s",
                "sockets connected and answering pings \(String(format: "%.1f", ready.seconds)) s after the first connect",
                "sent \(state.sent), acknowledged \(state.acked), delivered \(state.delivered) (expected \(state.expectedDeliveries)),"
                    + " lost \(lost), duplicated \(state.duplicated), out of order \(state.outOfOrder), error frames \(state.errors)",
                "send-to-delivery latency: p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, max \(percentile(1.0)) ms",
                "p99 by \(Self.window) s of sending: " + windows.joined(separator: ", ") + " ms",
            ]
            if let before, let idle {
                let perConnection = Double(idle - before) / Double(max(socketsOnFirstNode, 1))
                lines.append("first node's resident memory: \(before / 1024) MiB before connecting, \(idle / 1024) MiB with its \(socketsOnFirstNode) idle sockets"
                             + " (\(String(format: "%.1f", perConnection)) KiB per connection), \(end.map { "\($0 / 1024)" } ?? "-") MiB at the end")
            } else {
                lines.append("first node's resident memory: unknown (pass --server-pid)")
            }
            return lines
        }
    }

    /// The seconds of sending that each latency window covers.
    static let window = 10

    /// VmRSS of a process, in KiB.
    static func residentKiB(_ pid: Int32) -> Int? {
        ResidentMemory.kiB("VmRSS:", process: "\(pid)")
    }

    /// The process listening on a loopback TCP port, found through /proc.
    static func listeningProcess(port: Int) -> Int32? {
        let hexPort = String(format: ":%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 9, fields[1].hasSuffix(hexPort), fields[3] == "0A" { inodes.insert(String(fields[9])) }
            }
        }
        guard !inodes.isEmpty, let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for pid in pids.compactMap(Int32.init) {
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { continue }
            for fd in fds {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                   target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) {
                    return pid
                }
            }
        }
        return nil
    }

    enum BenchError: Error, CustomStringConvertible {
        case setup(String)

        var description: String {
            switch self {
            case .setup(let detail): "setup failed: \(detail)"
            }
        }
    }
}
