import AsyncHTTPClient
import ClassTodayCore
import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// Delivers queued pushes on any node: it expands the push outbox into one delivery per device (leaving out users
/// online on any node, muted rooms and blocked senders, decided now, at delivery time), claims due deliveries under
/// a lease and sends them, each exactly once per device: a sent push is deleted, a temporary failure (429, 5xx, no
/// connection) is tried again with exponential backoff (not before `Retry-After`) up to the configured number of
/// tries, and a token the service calls unregistered is deleted with its device.
///
/// A node that dies between claiming and finishing leaves its claims to expire; another node (or this one, restarted)
/// sends them then. A push is lost only if its cause's transaction is; it is sent twice only when a node dies after
/// the service accepted it and before that delivery was deleted (the few milliseconds of one write: each delivery is
/// deleted as its own send is accepted), and then the collapse id makes the device show it once. Before every try, the
/// first and each retry, the decision to send is made again (``PushQueue/claim(limit:at:lease:online:)``).
public final class PushDeliveryService: Service, Sendable {
    /// The most outbox rows expanded, and deliveries claimed, at once.
    static let batchSize = 256

    private let queue: any PushQueue
    private let senders: [DevicePlatform: any PushSender]
    private let online: @Sendable ([String]) async -> Set<String>
    private let settings: PushSettings
    private let metrics: PushMetrics
    private let client: HTTPClient?
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A service taking from `queue`, sending with the services `credentials` configures; `online` tells which users
    /// have a live chat connection on any node.
    public convenience init(
        queue: any PushQueue, credentials: PushCredentials, settings: PushSettings,
        online: @escaping @Sendable ([String]) async -> Set<String>, metrics: PrometheusCollectorRegistry, logger: Logger
    ) {
        let client = credentials.apns == nil && credentials.fcm == nil ? nil : PushHTTP.makeClient(settings)
        var senders: [DevicePlatform: any PushSender] = [:]
        if let client, let apns = credentials.apns {
            senders[.ios] = APNsClient(credentials: apns, client: client, refresh: settings.apnsTokenRefresh,
                                       timeout: settings.requestTimeout, logger: logger)
        }
        if let client, let fcm = credentials.fcm {
            senders[.android] = FCMClient(credentials: fcm, client: client, timeout: settings.requestTimeout, logger: logger)
        }
        self.init(queue: queue, senders: senders, client: client, settings: settings, online: online, metrics: metrics, logger: logger)
    }

    /// A service sending through `senders`; `client`, when given, is shut down when the service stops.
    init(
        queue: any PushQueue, senders: [DevicePlatform: any PushSender], client: HTTPClient?, settings: PushSettings,
        online: @escaping @Sendable ([String]) async -> Set<String>, metrics: PrometheusCollectorRegistry, logger: Logger
    ) {
        self.queue = queue
        self.senders = senders
        self.client = client
        self.settings = settings
        self.online = online
        self.metrics = PushMetrics(registry: metrics)
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Wakes the service: a push was queued.
    public func pushQueued() {
        wake.yield()
    }

    /// Delivers on every wake-up and poll until graceful shutdown (when this node delivers at all).
    public func run() async throws {
        if settings.deliveryEnabled {
            await deliverUntilShutdown()
        } else {
            try? await gracefulShutdown()
        }
        try? await client?.shutdown()
    }

    /// Shuts the HTTP client down, for a service that was drained by hand and never run.
    public func shutdown() async {
        try? await client?.shutdown()
    }

    private func deliverUntilShutdown() async {
        let ticker = Task { [wake, settings] in
            while !Task.isCancelled {
                try? await Task.sleep(for: settings.pollInterval)
                wake.yield()
            }
        }
        defer { ticker.cancel() }
        for await _ in wakeUps.cancelOnGracefulShutdown() {
            await drain()
        }
    }

    /// Expands and sends until nothing is queued or due (or a step fails, to be retried on the next wake-up).
    public func drain() async {
        while true {
            do {
                let expanded = try await queue.expand(limit: Self.batchSize, at: Date(), online: online)
                let claimed = try await queue.claim(limit: Self.batchSize, at: Date(), lease: settings.lease, online: online)
                if !claimed.isEmpty { await deliver(claimed) }
                if expanded < Self.batchSize && claimed.count < Self.batchSize { return }
            } catch is CancellationError {
                return
            } catch {
                logger.error("push delivery failed", metadata: ["error": "\(String(reflecting: error))"])
                return
            }
        }
    }

    /// Sends `claimed` at once, recording each outcome as soon as its own send answers: an accepted push is deleted
    /// then, not after the batch's slowest request, so that a node dying meanwhile sends again only what was not
    /// accepted yet. A delivery whose outcome cannot be recorded is left to its lease, to be tried again.
    private func deliver(_ claimed: [PushDelivery]) async {
        await withTaskGroup(of: Void.self) { group in
            for delivery in claimed {
                group.addTask { [self] in
                    let outcome = if let sender = senders[delivery.platform] {
                        await sender.send(delivery.content, to: delivery.deviceToken)
                    } else {
                        PushOutcome.failed(reason: "platform not configured")
                    }
                    do {
                        try await record(outcome, of: delivery)
                    } catch {
                        logger.error("recording a push outcome failed", metadata: ["error": "\(String(reflecting: error))"])
                    }
                }
            }
        }
    }

    /// Stores what became of one delivery: deleted when sent or given up, its device pruned when unregistered, due
    /// again after the backoff when it may be retried.
    private func record(_ outcome: PushOutcome, of delivery: PushDelivery) async throws {
        let platform = delivery.platform.rawValue
        switch outcome {
        case .sent:
            try await queue.finish([delivery.id])
            metrics.sent(platform)
        case .unregistered:
            try await queue.prune(deviceToken: delivery.deviceToken)
            metrics.pruned(platform)
        case .retry(let retryAfter) where delivery.attempts < settings.maximumAttempts:
            let delay = settings.backoff.delay(afterAttempt: delivery.attempts, retryAfter: retryAfter)
            try await queue.retry(delivery.id, at: Date().addingTimeInterval(delay))
        case .retry, .failed:
            try await queue.finish([delivery.id])
            metrics.failed(platform)
            logger.warning("push given up", metadata: ["platform": "\(platform)", "attempts": "\(delivery.attempts)"])
        }
    }
}

/// The push counters on `/metrics`, by platform.
struct PushMetrics: Sendable {
    /// The registry `/metrics` renders.
    let registry: PrometheusCollectorRegistry

    /// A push was accepted by APNs or FCM: `push_sent_total`.
    func sent(_ platform: String) {
        count("sent", platform, help: "Pushes accepted by APNs or FCM")
    }

    /// A push was given up (a permanent failure, or too many temporary ones): `push_failed_total`.
    func failed(_ platform: String) {
        count("failed", platform, help: "Pushes given up after a permanent failure or too many temporary ones")
    }

    /// A device token was deleted because the service called it unregistered: `push_pruned_total`.
    func pruned(_ platform: String) {
        count("pruned", platform, help: "Device tokens deleted because APNs or FCM called them unregistered")
    }

    /// Adds one to `push_<event>_total` for `platform`.
    private func count(_ event: String, _ platform: String, help: String) {
        let descriptor = MetricNameDescriptor(metricName: "push_\(event)", unitName: "total", helpText: help)
        registry.makeCounter(descriptor: descriptor, labels: [("platform", platform)]).increment()
    }
}
