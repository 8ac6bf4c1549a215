import HTTPTypes
import Hummingbird
import Prometheus

/// Counts requests and records their latency by method, route pattern and status, into a Prometheus registry.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The registry `/metrics` renders.
    let registry: PrometheusCollectorRegistry

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    /// `http_requests_total`.
    private static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            metricName: "http_requests", unitName: "total", helpText: "HTTP requests answered, by method, route pattern and status")
    }

    /// `http_request_duration_seconds`.
    private static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            metricName: "http_request_duration", unitName: "seconds", helpText: "Time to answer an HTTP request, by method and route pattern")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let route = context.endpointPath ?? "unmatched"
        let method = request.method.rawValue
        registry.makeCounter(
            descriptor: Self.requests, labels: [("method", method), ("route", route), ("status", "\(response.status.code)")]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: Self.duration, labels: [("method", method), ("route", route)], buckets: Self.buckets
        ).record(ContinuousClock.now - start)
        return response
    }
}
