import ClassTodayCore
import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// Delivers the mail outbox on any node: claims due mails under a lease and sends each through the transport (an SMTP
/// server, or `.eml` files without one). A sent mail is deleted; a temporary failure (4xx, no connection, a timeout) is
/// tried again with exponential backoff up to the configured number of tries; a permanent one (5xx) is given up at
/// once. Each outcome is counted on `/metrics` (`mail_sent_total`, `mail_retried_total`, `mail_failed_total`).
///
/// A mail is lost only if its cause's transaction is: a node that dies between commit and send leaves the row, which
/// this node (restarted) or another sends. It goes twice only when a node dies after the server accepted it and before
/// its row was deleted (one write), and then it carries the same `Message-ID`.
public final class MailDeliveryService: Service, Sendable {
    /// The most mails claimed at once.
    static let batchSize = 16

    private let queue: any MailQueue
    private let transport: any MailTransport
    private let settings: MailSettings
    private let metrics: MailMetrics
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A service taking from `queue` and sending through `transport`.
    init(queue: any MailQueue, transport: any MailTransport, settings: MailSettings, metrics: PrometheusCollectorRegistry, logger: Logger) {
        self.queue = queue
        self.transport = transport
        self.settings = settings
        self.metrics = MailMetrics(registry: metrics)
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// A service over the environment's outbox and transport.
    public convenience init(_ environment: ServerEnvironment, logger: Logger) {
        self.init(queue: environment.mailQueue, transport: environment.mailTransport, settings: environment.configuration.mail,
                  metrics: environment.metrics, logger: logger)
    }

    /// Wakes the service: a mail was queued.
    public func mailQueued() {
        wake.yield()
    }

    /// Delivers on every wake-up and poll until graceful shutdown (when this node delivers at all).
    public func run() async throws {
        guard settings.deliveryEnabled else {
            logger.info("mail delivery is off on this node (mail.enabled = false); mails stay queued")
            try? await gracefulShutdown()
            return
        }
        logger.info("mail delivery started", metadata: ["transport": "\(transport.name)"])
        let ticker = Task { [wake, settings] in
            while !Task.isCancelled {
                try? await Task.sleep(for: settings.pollInterval)
                wake.yield()
            }
        }
        defer { ticker.cancel() }
        wake.yield()
        for await _ in wakeUps.cancelOnGracefulShutdown() {
            await drain()
        }
    }

    /// Sends until nothing is due (or a step fails, to be retried on the next wake-up).
    public func drain() async {
        while true {
            do {
                let claimed = try await queue.claim(limit: Self.batchSize, at: Date(), lease: settings.lease)
                for mail in claimed {
                    await deliver(mail)
                }
                if claimed.count < Self.batchSize { return }
            } catch is CancellationError {
                return
            } catch {
                logger.error("mail delivery failed", metadata: ["error": "\(String(reflecting: error))"])
                return
            }
        }
    }

    /// Sends one mail and records what became of it; an outcome that cannot be recorded is left to the lease.
    private func deliver(_ mail: QueuedMail) async {
        let message = MIMEMessage.render(mail, fromName: settings.fromName, fromAddress: settings.fromAddress)
        let outcome = await transport.send(message, from: settings.fromAddress, to: mail.draft.to, mail: mail)
        let kind = mail.draft.kind.rawValue
        let metadata: Logger.Metadata = ["mail_id": "\(mail.id)", "kind": "\(kind)", "attempts": "\(mail.attempts)"]
        do {
            switch outcome {
            case .sent:
                try await queue.finish(mail.id)
                metrics.count("sent", kind)
                logger.debug("mail sent", metadata: metadata)
            case .retry(let reason) where mail.attempts < settings.maximumAttempts:
                let delay = settings.backoff.delay(afterAttempt: mail.attempts, retryAfter: nil)
                try await queue.retry(mail.id, at: Date().addingTimeInterval(delay))
                metrics.count("retried", kind)
                logger.warning("mail will be tried again", metadata: metadata.merging(["reason": "\(reason)", "delay_seconds": "\(delay)"]) { $1 })
            case .retry(let reason), .failed(let reason):
                try await queue.finish(mail.id)
                metrics.count("failed", kind)
                logger.error("mail given up", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
            }
        } catch {
            logger.error("recording a mail outcome failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

/// The mail counters on `/metrics`, by kind of mail.
struct MailMetrics: Sendable {
    /// The registry `/metrics` renders.
    let registry: PrometheusCollectorRegistry

    /// Adds one to `mail_<event>_total` for `kind`: `sent` (accepted by the server or written to a file), `retried`
    /// (a temporary failure, tried again later) or `failed` (given up).
    func count(_ event: String, _ kind: String) {
        let help = switch event {
        case "sent": "Mails accepted by the SMTP server (or written to the mail folder)"
        case "retried": "Mail tries that failed for now and will be tried again"
        default: "Mails given up after a permanent failure or too many temporary ones"
        }
        let descriptor = MetricNameDescriptor(metricName: "mail_\(event)", unitName: "total", helpText: help)
        registry.makeCounter(descriptor: descriptor, labels: [("kind", kind)]).increment()
    }
}
