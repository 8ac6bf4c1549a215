import ClassTodayCore
import Foundation
import JWTKit
import Logging

/// A provider's signing keys, fetched from its JSON Web Key Set and cached by key id (`kid`). A token naming a key the
/// cache does not hold refetches the set, at most once per ``refetchInterval`` (concurrent misses share one fetch), so
/// a provider's key rotation is picked up at once while tokens with made-up key ids cannot make the server hammer the
/// provider. A refetch replaces the whole set: keys the provider withdrew stop working.
actor JWKSCache {
    /// The provider, for messages and logs.
    let provider: IdentityProvider
    /// The key set's URL.
    let url: String
    /// How long at least between two fetches.
    let refetchInterval: Duration
    private let http: ProviderHTTP
    private let logger: Logger
    private var keys = JWTKeyCollection()
    private var keyIds: Set<String> = []
    private var lastFetch: ContinuousClock.Instant?
    private var lastFetchFailed = false
    private var fetching: Task<Void, any Error>?

    /// Creates an empty cache; the first token fetches the set.
    init(provider: IdentityProvider, url: String, refetchInterval: Duration, http: ProviderHTTP, logger: Logger) {
        self.provider = provider
        self.url = url
        self.refetchInterval = refetchInterval
        self.http = http
        self.logger = logger
    }

    /// The keys holding `keyId`, fetching the set when the key is unknown and the last fetch is old enough; nil when
    /// the provider has no such key. Throws ``DomainError/unavailable(_:retryAfterSeconds:)`` when the provider cannot
    /// be reached (or could not be at the last fetch, less than ``refetchInterval`` ago).
    func keys(holding keyId: String) async throws -> JWTKeyCollection? {
        if keyIds.contains(keyId) { return keys }
        if let fetching {
            try await fetching.value
        } else if let lastFetch, ContinuousClock.now - lastFetch < refetchInterval {
            if lastFetchFailed {
                throw ProviderHTTP.unavailable(provider, retryAfter: Int((refetchInterval - (ContinuousClock.now - lastFetch)).seconds.rounded(.up)))
            }
            return nil
        } else {
            let task = Task { try await self.fetch() }
            fetching = task
            defer { fetching = nil }
            try await task.value
        }
        return keyIds.contains(keyId) ? keys : nil
    }

    /// Fetches the set and replaces the cached keys with its signing keys (those with a `kid` that jwt-kit can use).
    private func fetch() async throws {
        lastFetch = .now
        lastFetchFailed = true
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
        (keys, keyIds, lastFetchFailed) = (fresh, ids, false)
        logger.info("sign-in provider keys fetched", metadata: ["provider": "\(provider.rawValue)", "kids": "\(ids.sorted())"])
    }
}
