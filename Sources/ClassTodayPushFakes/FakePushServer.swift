import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import HTTPTypes

/// A push as a fake service accepted it.
public struct ReceivedPush: Sendable, Hashable {
    /// `ios` (APNs) or `android` (FCM).
    public let platform: String
    /// The device token it was for.
    public let deviceToken: String
    /// The title shown.
    public let title: String
    /// The body shown.
    public let body: String
    /// The badge (APNs `aps.badge`; FCM's `notification_count`).
    public let badge: Int?
    /// APNs `thread-id`, FCM's notification `tag`.
    public let threadId: String?
    /// APNs `apns-collapse-id`, FCM's `collapse_key`.
    public let collapseId: String?
    /// The custom keys (APNs: beside `aps`; FCM: `data`).
    public let data: [String: String]
    /// When the fake accepted it.
    public let receivedAt: Date
}

/// What a fake answers to the next pushes, in order, before it accepts again.
public enum FakeAnswer: Sendable, Hashable {
    /// 429 with `Retry-After: seconds` (0: no header).
    case tooManyRequests(retryAfter: Int)
    /// 500.
    case serverError
}

/// The state the fakes share between their handlers: what they received, refused and will answer.
final class FakeLedger: Sendable {
    private struct State {
        var received: [ReceivedPush] = []
        var refusals: [String] = []
        var planned: [FakeAnswer] = []
        var unregistered: Set<String> = []
        var requests = 0
    }

    private let state = Mutex(State())

    /// Records an accepted push.
    func accept(_ push: ReceivedPush) {
        state.withLock { $0.received.append(push) }
    }

    /// Records why a request was refused (a failed check).
    func refuse(_ reason: String) {
        state.withLock { $0.refusals.append(reason) }
    }

    /// The next planned failure, taken off the plan; counts the request.
    func nextPlanned() -> FakeAnswer? {
        state.withLock { state in
            state.requests += 1
            return state.planned.isEmpty ? nil : state.planned.removeFirst()
        }
    }

    /// The pushes accepted so far.
    var received: [ReceivedPush] { state.withLock { $0.received } }
    /// The reasons of the refusals so far.
    var refusals: [String] { state.withLock { $0.refusals } }
    /// How many push requests arrived.
    var requests: Int { state.withLock { $0.requests } }

    /// Adds `answers` to the plan.
    func plan(_ answers: [FakeAnswer]) { state.withLock { $0.planned += answers } }
    /// Makes `token` unregistered.
    func unregister(_ token: String) { state.withLock { _ = $0.unregistered.insert(token) } }
    /// Whether `token` is unregistered.
    func isUnregistered(_ token: String) -> Bool { state.withLock { $0.unregistered.contains(token) } }
}

/// Runs a Hummingbird application on a free loopback port for the duration of `body`.
enum FakeServerRunner {
    /// A logger for a fake server that reports warnings and errors only.
    static func quietLogger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return logger
    }

    /// Starts `makeApplication(onRunning)` and runs `body` with its port; the server stops when `body` returns or throws.
    static func run<Value: Sendable>(
        _ makeApplication: (@escaping @Sendable (any Channel) async -> Void) throws -> some ApplicationProtocol,
        _ body: @Sendable (Int) async throws -> Value
    ) async throws -> Value {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = try makeApplication { channel in portContinuation.yield(channel.localAddress?.port ?? 0) }
        let logger = Logger(label: "push-fake") { _ in SwiftLogNoOpLogHandler() }
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                await group.triggerGracefulShutdown()
                throw FakeServerError.noPort
            }
            let result: Result<Value, any Error>
            do {
                result = .success(try await body(port))
            } catch {
                result = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}

/// A fake server did not start.
enum FakeServerError: Error {
    /// It reported no port.
    case noPort
}

extension Response {
    /// A JSON response.
    static func fakeJSON(_ object: Any, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        var headers = extra
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
