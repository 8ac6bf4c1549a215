import ClassTodayCore
import Configuration
import Foundation

/// Apple Push Notification service: token-based authentication with a `.p8` signing key.
public struct APNsSettings: Sendable, Equatable {
    /// APNs in production.
    public static let productionEndpoint = "https://api.push.apple.com"
    /// APNs for development builds of the app.
    public static let sandboxEndpoint = "https://api.sandbox.push.apple.com"

    /// The `.p8` signing key file (PKCS#8 PEM) from the Apple developer account; nil leaves APNs off.
    public var keyPath: String?
    /// The signing key's id (the JWT's `kid`).
    public var keyId = ""
    /// The developer team id (the JWT's `iss`).
    public var teamId = ""
    /// The app's bundle id (`apns-topic`).
    public var topic = ""
    /// Whether to use the sandbox endpoint (development builds) instead of production.
    public var sandbox = false
    /// An endpoint to use instead of production or sandbox (a test's fake server).
    public var endpoint: String?

    /// APNs off.
    public init() {}

    /// The endpoint pushes go to.
    public var resolvedEndpoint: String {
        endpoint ?? (sandbox ? Self.sandboxEndpoint : Self.productionEndpoint)
    }
}

/// Firebase Cloud Messaging (HTTP v1 API) with a service account.
public struct FCMSettings: Sendable, Equatable {
    /// The service account's JSON key file (`client_email`, `private_key`, `token_uri`, `project_id`); nil leaves FCM off.
    public var serviceAccountPath: String?
    /// The FCM API's base URL.
    public var endpoint = "https://fcm.googleapis.com"

    /// FCM off.
    public init() {}
}

/// Push notifications: the two services, and how the delivery service retries.
public struct PushSettings: Sendable, Equatable {
    /// APNs (iOS devices).
    public var apns = APNsSettings()
    /// FCM (Android devices).
    public var fcm = FCMSettings()
    /// A PEM file of certificates to trust besides the system's, for push endpoints (a test's fake server signed by
    /// its own CA); nil trusts the system's only. Verification is never turned off.
    public var trustedCAPath: String?
    /// Whether this node delivers pushes (several nodes may; pushes are still queued when none does).
    public var deliveryEnabled = true
    /// How many times a push is tried before it is given up.
    public var maximumAttempts = 8
    /// The delay after the first failed try; it doubles with each further one.
    public var retryBase: Duration = .seconds(2)
    /// The longest delay between two tries.
    public var retryMaximum: Duration = .seconds(900)
    /// How often the queue is read without a wake-up (pushes queued by other nodes, retries that became due).
    public var pollInterval: Duration = .seconds(1)
    /// How long a claimed push stays claimed: a node that dies while sending delays it by this much.
    public var lease: Duration = .seconds(60)
    /// The longest request to APNs or FCM.
    public var requestTimeout: Duration = .seconds(10)
    /// How long an APNs provider token is used before a new one is signed (Apple refuses tokens older than an hour).
    public var apnsTokenRefresh: Duration = .seconds(50 * 60)

    /// Both services off, with the default delivery settings.
    public init() {}

    /// The delays between tries.
    var backoff: PushBackoff { PushBackoff(base: retryBase.seconds, maximum: retryMaximum.seconds) }

    /// Reads `push.*` from `reader` (listed in docs/configuration.md).
    init(reader: ConfigReader) {
        apns.keyPath = reader.string(forKey: "push.apns.keyPath")
        apns.keyId = reader.string(forKey: "push.apns.keyId", default: "")
        apns.teamId = reader.string(forKey: "push.apns.teamId", default: "")
        apns.topic = reader.string(forKey: "push.apns.topic", default: "")
        apns.sandbox = reader.bool(forKey: "push.apns.sandbox", default: false)
        apns.endpoint = reader.string(forKey: "push.apns.endpoint")
        fcm.serviceAccountPath = reader.string(forKey: "push.fcm.serviceAccountPath")
        fcm.endpoint = reader.string(forKey: "push.fcm.endpoint", default: fcm.endpoint)
        trustedCAPath = reader.string(forKey: "push.trustedCaPath")
        deliveryEnabled = reader.bool(forKey: "push.enabled", default: true)
        maximumAttempts = reader.int(forKey: "push.maxAttempts", default: maximumAttempts)
        retryBase = .milliseconds(reader.int(forKey: "push.retryBaseMilliseconds", default: 2000))
        retryMaximum = .seconds(reader.int(forKey: "push.retryMaxSeconds", default: 900))
        pollInterval = .milliseconds(reader.int(forKey: "push.pollMilliseconds", default: 1000))
        lease = .seconds(reader.int(forKey: "push.leaseSeconds", default: 60))
        requestTimeout = .seconds(reader.int(forKey: "push.timeoutSeconds", default: 10))
    }

    /// Checks the values; throws a ``ConfigurationError`` naming the key.
    func validate() throws {
        if apns.keyPath != nil {
            for (key, value) in [("push.apns.keyId", apns.keyId), ("push.apns.teamId", apns.teamId), ("push.apns.topic", apns.topic)] {
                guard !value.isEmpty else { throw ConfigurationError.invalid(key: key, reason: "is required when push.apns.keyPath is set") }
            }
            try Self.checkEndpoint(apns.resolvedEndpoint, key: "push.apns.endpoint", allowPlainLoopback: false)
        }
        if fcm.serviceAccountPath != nil { try Self.checkEndpoint(fcm.endpoint, key: "push.fcm.endpoint", allowPlainLoopback: true) }
        guard (1...100).contains(maximumAttempts) else { throw ConfigurationError.invalid(key: "push.maxAttempts", reason: "must be 1 to 100") }
        guard retryBase > .zero else { throw ConfigurationError.invalid(key: "push.retryBaseMilliseconds", reason: "must be positive") }
        guard retryMaximum >= retryBase else {
            throw ConfigurationError.invalid(key: "push.retryMaxSeconds", reason: "must not be below push.retryBaseMilliseconds")
        }
        guard pollInterval > .zero else { throw ConfigurationError.invalid(key: "push.pollMilliseconds", reason: "must be positive") }
        guard lease > requestTimeout else { throw ConfigurationError.invalid(key: "push.leaseSeconds", reason: "must exceed push.timeoutSeconds") }
        guard requestTimeout > .zero else { throw ConfigurationError.invalid(key: "push.timeoutSeconds", reason: "must be positive") }
    }

    /// A push endpoint must be HTTPS (APNs: always; FCM: plain HTTP only on a loopback address, a test's fake).
    private static func checkEndpoint(_ url: String, key: String, allowPlainLoopback: Bool) throws {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw ConfigurationError.invalid(key: key, reason: "must be an absolute URL")
        }
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        guard components.scheme == "https" || (allowPlainLoopback && components.scheme == "http" && loopback) else {
            throw ConfigurationError.invalid(key: key, reason: "must use https")
        }
    }
}
