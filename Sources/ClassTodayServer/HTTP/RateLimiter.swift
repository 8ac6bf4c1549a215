import Foundation
import Synchronization

/// A token bucket per client key: `limit` requests at once, refilled at `limit` per minute.
final class RateLimiter: Sendable {
    /// The outcome of taking one token.
    struct Decision: Sendable, Equatable {
        /// Whether the request may go ahead.
        let allowed: Bool
        /// The bucket's size.
        let limit: Int
        /// Whole tokens left after this request.
        let remaining: Int
        /// Seconds until the bucket is full again.
        let resetSeconds: Int
        /// Seconds until the next token, when refused.
        let retryAfterSeconds: Int
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let limit: Int
    private let refillPerSecond: Double
    private let maximumKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter allowing `perMinute` requests per minute per key, remembering at most `maximumKeys` keys
    /// (full buckets are forgotten first: they are indistinguishable from new ones).
    convenience init(perMinute: Int, maximumKeys: Int = 100_000) {
        self.init(burst: perMinute, perSecond: Double(max(1, perMinute)) / 60, maximumKeys: maximumKeys)
    }

    /// A limiter allowing bursts of `burst` requests per key, refilled at `perSecond`.
    init(burst: Int, perSecond: Double, maximumKeys: Int = 100_000) {
        self.limit = max(1, burst)
        self.refillPerSecond = perSecond
        self.maximumKeys = maximumKeys
    }

    /// Forgets a key (a closed connection's bucket).
    func forget(_ key: String) {
        _ = buckets.withLock { $0.removeValue(forKey: key) }
    }

    /// A limiter for `perMinute` requests per minute, or nil when `perMinute` is 0 (limiting off).
    convenience init?(perMinuteOrOff perMinute: Int) {
        guard perMinute > 0 else { return nil }
        self.init(perMinute: perMinute)
    }

    /// Takes one token from `key`'s bucket at `now`.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { buckets in
            if buckets.count >= maximumKeys, buckets[key] == nil {
                forgetFullBuckets(&buckets, now: now)
            }
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit), updated: now)
            let elapsed = max(0, (now - bucket.updated).seconds)
            bucket.tokens = min(Double(limit), bucket.tokens + elapsed * refillPerSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[key] = bucket
            let missing = Double(limit) - bucket.tokens
            return Decision(
                allowed: allowed, limit: limit, remaining: Int(bucket.tokens.rounded(.down)),
                resetSeconds: Int((missing / refillPerSecond).rounded(.up)),
                retryAfterSeconds: allowed ? 0 : max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up))))
        }
    }

    private func forgetFullBuckets(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + (now - bucket.updated).seconds * refillPerSecond < Double(limit)
        }
        if buckets.count >= maximumKeys {
            // Every client is mid-burst: forget the oldest half rather than grow without bound.
            let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(maximumKeys / 2)
            buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
