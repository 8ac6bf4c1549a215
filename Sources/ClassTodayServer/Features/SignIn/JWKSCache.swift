import ClassTodayCore
import Foundation
import JWTKit
import Logging

/// A provider's signing keys, fetched from its JSON Web Key Set and cached by key id (`kid`). A token naming a key the
/// cache does not hold refetches the set, at most once per ``refetchInterval`` (concurrent misses share one fetch), so
/// a provider's key rotation is picked up at once while tokens with made-up key ids cannot make the server hammer the
/// provider. A refetch replaces the whole set: keys the provider withdrew stop working.
///
/// A fetch that fails is tried again soon, not at the next interval: after ``firstRetryDelay``, doubling with each
/// failure in a row up to ``refetchInterval``, so that a short outage of the provider locks sign-in out for about as
/// long as it lasts. Until then sign-in answers 503 with a `Retry-After` of the seconds left before the next try.
actor JWKSCache {
    /// The provider, for messages and logs.
    let provider: IdentityProvider
    /// The key set's URL.
    let url: String
    /// How long at least between two fetches that succeed.
    let refetchInterval: Duration
    /// How long after a first failed fetch the next may be made.
    let firstRetryDelay: Duration
    private let http: ProviderHTTP
    private let logger: Logger
    private var keys = JWTKeyCollection()
    private var keyIds: Set<String> = []
    private var lastFetch: ContinuousClock.Instant?
    /// How many fetches in a row have failed.
    private var failures = 0
    private var fetching: Task<Void, any Error>?

    /// Creates an empty cache; the first token fetches the set.
    init(provider: IdentityProvider, url: String, refetchInterval: Duration, firstRetryDelay: Duration, http: ProviderHTTP,
         logger: Logger) {
        self.provider = provider
        self.url = url
        self.refetchInterval = refetchInterval
        self.firstRetryDelay = firstRetryDelay
        self.http = http
        self.logger = logger
    }

    /// The keys holding `keyId`, fetching the set when the key is unknown and the next fetch is due; nil when the
    /// provider has no such key. Throws ``DomainError/unavailable(_:retryAfterSeconds:)`` when the provider cannot be
    /// reached (or could not be at the last fetch, and the next try is not due yet), with the seconds until that try.
    func keys(holding keyId: String) async throws -> JWTKeyCollection? {
        if keyIds.contains(keyId) { return keys }
        if let fetching {
            try await fetching.value
        } else if let lastFetch, ContinuousClock.now < lastFetch + delayBeforeNextFetch {
            guard failures == 0 else { throw unavailable(until: lastFetch + delayBeforeNextFetch) }
            return nil
        } else {
            let task = Task { try await self.fetch() }
            fetching = task
            defer { fetching = nil }
            do {
                try await task.value
            } catch {
                throw unavailable(until: (lastFetch ?? .now) + delayBeforeNextFetch)
            }
        }
        return keyIds.contains(keyId) ? keys : nil
    }

    /// How long after the last fetch the next may be made: the refetch interval after a success; after failures in a
    /// row, the first retry delay doubled for each failure but the first, at most the refetch interval.
    var delayBeforeNextFetch: Duration {
        guard failures > 0 else { return refetchInterval }
        let doublings = min(failures - 1, 30)
        return min(firstRetryDelay * (1 << doublings), refetchInterval)
    }

    /// The 503 telling a client to come back when the next fetch is due (at least a second from now).
    private func unavailable(until next: ContinuousClock.Instant) -> DomainError {
        ProviderHTTP.unavailable(provider, retryAfter: max(1, Int((next - .now).seconds.rounded(.up))))
    }

    /// Fetches the set and replaces the cached keys with its signing keys (those with a `kid` that jwt-kit can use).
    private func fetch() async throws {
        lastFetch = .now
        failures += 1
        let answer = try await http.get(url, for: provider)
        guard answer.status == 200,
              let document = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let entries = document["keys"] as? [[String: Any]]
        else {
            logger.warning("sign-in provider key set unreadable", metadata: ["provider": "\(provider.rawValue)"])
            throw ProviderHTTP.unavailable(provider)
        }
        let fresh = JWTKeyCollection()
        var ids: Set<String> = []
        for entry in entries where (entry["use"] as? String ?? "sig") == "sig" {
            guard let kid = entry["kid"] as? String,
                  let json = try? JSONSerialization.data(withJSONObject: entry),
                  let jwk = try? JWK(json: String(decoding: json, as: UTF8.self)),
                  (try? await fresh.add(jwk: jwk, isDefault: false)) != nil
            else { continue }
            ids.insert(kid)
        }
        (keys, keyIds, failures) = (fresh, ids, 0)
        logger.info("sign-in provider keys fetched", metadata: ["provider": "\(provider.rawValue)", "kids": "\(ids.sorted())"])
    }
}
