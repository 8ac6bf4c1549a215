import ClassTodayCore
import Foundation
import Logging
import Prometheus

/// The Prometheus gauge `classtoday_moderation_oldest_open_report_age_seconds`: how long the oldest open report has
/// waited (0 when none is open), so that the 24-hour promise of app review can be alerted on. Set after every change to
/// the queue and every ``interval`` by a background job (the age grows while nothing changes).
struct ModerationQueueGauge: Sendable {
    /// The gauge's name: `classtoday_moderation_oldest_open_report_age_seconds`.
    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "classtoday", subsystem: "moderation", metricName: "oldest_open_report_age", unitName: "seconds",
            helpText: "Age in seconds of the oldest open report, 0 when none is open")
    }
    /// How often the background job refreshes it.
    static let interval = Duration.seconds(15)

    /// Where the open reports are.
    let moderation: any ModerationRepository
    /// The registry's gauge.
    let gauge: Gauge

    /// The gauge of `environment`'s registry (one gauge, however many of these are made).
    init(_ environment: ServerEnvironment) {
        moderation = environment.moderation
        gauge = environment.metrics.makeGauge(descriptor: Self.descriptor)
    }

    /// Reads the oldest open report and sets the gauge.
    func refresh(now: Date = Date()) async throws {
        let oldest = try await moderation.oldestOpenReport()
        gauge.set(oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }

    /// ``refresh(now:)``, logging a failure instead of failing the request that changed the queue.
    func refreshLogged(_ logger: Logger) async {
        do {
            try await refresh()
        } catch {
            logger.warning("moderation queue gauge not refreshed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
