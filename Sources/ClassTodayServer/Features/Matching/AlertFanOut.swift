import ClassTodayCore
import Foundation
import Logging
import ServiceLifecycle

/// Turns queued classes into alert notifications in the background and pushes them to their owners.
///
/// Creating or reopening a class only queues it (in the same transaction, see ``AlertRepository``), so its
/// writer never waits for the fan-out, however many alerts it satisfies. The service drains the queue in
/// batches when ``classQueued()`` wakes it, and once every ``pollInterval`` besides, which picks up classes
/// queued by another node or left over by a crash. Each batch is stored before it is pushed.
public final class AlertFanOut: Service, Sendable {
    /// The most classes one transaction fans out.
    static let batchSize = 64
    /// How often the queue is read without a wake-up.
    static let pollInterval = Duration.seconds(1)

    private let alerts: any AlertRepository
    private let hub: ChatHub
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A fan-out reading `alerts` and pushing through `hub`.
    public init(alerts: any AlertRepository, hub: ChatHub, logger: Logger) {
        self.alerts = alerts
        self.hub = hub
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Wakes the service: a class was queued.
    func classQueued() {
        wake.yield()
    }

    /// Drains the queue on every wake-up and poll until graceful shutdown, then once more.
    public func run() async throws {
        let ticker = Task { [wake] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.pollInterval)
                wake.yield()
            }
        }
        defer { ticker.cancel() }
        for await _ in wakeUps.cancelOnGracefulShutdown() {
            await drain()
        }
        await drain()
    }

    /// Fans out batches until the queue is empty (or a batch fails, to be retried on the next wake-up).
    func drain() async {
        while true {
            do {
                let batch = try await alerts.fanOut(limit: Self.batchSize, at: Date())
                for notification in batch.notifications {
                    await hub.notify(userId: notification.userId, json: NotificationResponse(notification: notification).apiJSONText)
                }
                if batch.classCount < Self.batchSize { return }
            } catch {
                logger.error("alert fan-out failed", metadata: ["error": "\(String(reflecting: error))"])
                return
            }
        }
    }
}
