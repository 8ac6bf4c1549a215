import ClassTodayCore
import Foundation

/// How often mails about an account may be asked for, on this node: per address (the address typed for a reset, the
/// account for a verification or a change of address) and, for password resets, per client address. A refused request
/// is a 429 problem with `Retry-After`. An address is limited whether or not an account has it, so that the limit says
/// nothing about which accounts exist.
struct AccountMailLimits: Sendable {
    private let perAddress: RateLimiter?
    private let perClient: RateLimiter?

    /// The limits of `settings` (0 turns one off).
    init(_ settings: AccountSettings) {
        perAddress = Self.hourly(settings.mailsPerAddressPerHour)
        perClient = Self.hourly(settings.resetRequestsPerClientPerHour)
    }

    /// Takes one mail from `key`'s allowance (`reset:<address>`, `verify:<user id>`, `change:<user id>`).
    func takeMail(_ key: String) throws {
        try Self.take(perAddress, key, what: "mails for this address")
    }

    /// Takes one reset request from the client address's allowance.
    func takeRequest(client: String) throws {
        try Self.take(perClient, "client:" + client, what: "password-reset requests from this client")
    }

    private static func take(_ limiter: RateLimiter?, _ key: String, what: String) throws {
        guard let decision = limiter?.take(key), !decision.allowed else { return }
        throw DomainError.tooManyRequests("too many \(what); retry after \(decision.retryAfterSeconds) s",
                                          retryAfterSeconds: decision.retryAfterSeconds)
    }

    /// A bucket of `perHour` refilled over an hour, or nil for 0.
    private static func hourly(_ perHour: Int) -> RateLimiter? {
        perHour > 0 ? RateLimiter(burst: perHour, perSecond: Double(perHour) / 3600) : nil
    }
}
