/// Delays between reconnection attempts: exponential, capped, with jitter so that many clients that lost the same
/// server do not return in step.
public struct ReconnectBackoff: Sendable {
    /// The first delay.
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration
    /// The share of each delay that is random (0: none, 0.5: up to half shorter).
    public var jitter: Double
    private var attempt = 0

    /// A backoff from `initial`, doubling up to `maximum`.
    public init(initial: Duration = .milliseconds(200), maximum: Duration = .seconds(10), jitter: Double = 0.2) {
        precondition(initial > .zero && maximum >= initial && (0...1).contains(jitter))
        (self.initial, self.maximum, self.jitter) = (initial, maximum, jitter)
    }

    /// The delay before the next attempt.
    public mutating func nextDelay() -> Duration {
        let exponent = min(attempt, 30)
        attempt += 1
        let full = min(initial * (1 << exponent), maximum)
        return full * (1 - Double.random(in: 0...jitter))
    }

    /// Starts again from `initial`, after a connection that worked.
    public mutating func reset() {
        attempt = 0
    }
}
