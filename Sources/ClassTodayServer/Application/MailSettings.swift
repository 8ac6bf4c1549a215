import ClassTodayCore
import Configuration
import Foundation

/// How the SMTP connection is secured; TLS is always verified (the system's roots plus an optional CA file).
public enum SMTPSecurity: String, Sendable, Equatable, CaseIterable {
    /// Plain TCP upgraded by `STARTTLS` before anything else is said (RFC 3207); a server that does not offer it is
    /// refused. Port 587 by default.
    case starttls
    /// TLS from the first byte ("implicit TLS", RFC 8314). Port 465 by default.
    case tls
}

/// Mail delivery: an SMTP server, or, with none configured (the default), `.eml` files in a folder.
public struct MailSettings: Sendable, Equatable {
    /// The SMTP server's host name; nil writes every mail to ``folder`` instead (a local set-up).
    public var smtpHost: String?
    /// The SMTP server's port; nil picks the usual one for ``security`` (587 or 465).
    public var smtpPort: Int?
    /// STARTTLS or implicit TLS.
    public var security = SMTPSecurity.starttls
    /// The user name for `AUTH PLAIN` or `AUTH LOGIN`; nil sends no AUTH.
    public var user: String?
    /// The password for AUTH (a secret: from the environment or a file kept out of the repository).
    public var password: String?
    /// The envelope sender and `From` address.
    public var fromAddress = "no-reply@classtoday.localhost"
    /// The display name in `From`.
    public var fromName = "ClassToday"
    /// A PEM file of certificates to trust besides the system's (a test server's own CA); verification is never off.
    public var trustedCAPath: String?
    /// The base URL of links in mails (`https://classtoday.example`); nil uses `http://<host>:<port>` of the server.
    public var publicBaseURL: String?
    /// Where mails are written without an SMTP server; nil is `mail/` in the data folder.
    public var folder: String?
    /// Whether this node delivers mails (several nodes may; mails are still queued when none does).
    public var deliveryEnabled = true
    /// How many times a mail is tried before it is given up.
    public var maximumAttempts = 10
    /// The delay after the first failed try; it doubles with each further one.
    public var retryBase: Duration = .seconds(5)
    /// The longest delay between two tries.
    public var retryMaximum: Duration = .seconds(1800)
    /// How often the outbox is read without a wake-up (mails queued by other nodes, retries that became due).
    public var pollInterval: Duration = .seconds(2)
    /// How long a claimed mail stays claimed: a node that dies while sending delays it by this much.
    public var lease: Duration = .seconds(120)
    /// The longest SMTP conversation for one mail.
    public var timeout: Duration = .seconds(30)

    /// No SMTP server: mails go to files.
    public init() {}

    /// The port to connect to.
    public var resolvedPort: Int { smtpPort ?? (security == .tls ? 465 : 587) }

    /// The delays between tries.
    var backoff: PushBackoff { PushBackoff(base: retryBase.seconds, maximum: retryMaximum.seconds) }

    /// Reads `mail.*` from `reader`: `mail.smtp.host`, `.port`, `.security` (`starttls` or `tls`), `.user`, `.password`;
    /// `mail.from`, `mail.fromName`, `mail.trustedCaPath`, `mail.publicBaseUrl`, `mail.folder`, `mail.enabled`,
    /// `mail.maxAttempts`, `mail.retryBaseMilliseconds`, `mail.retryMaxSeconds`, `mail.pollMilliseconds`,
    /// `mail.leaseSeconds`, `mail.timeoutSeconds`.
    init(reader: ConfigReader) throws {
        smtpHost = reader.string(forKey: "mail.smtp.host").flatMap { $0.isEmpty ? nil : $0 }
        smtpPort = reader.int(forKey: "mail.smtp.port")
        let security = reader.string(forKey: "mail.smtp.security", default: self.security.rawValue)
        guard let parsed = SMTPSecurity(rawValue: security.lowercased()) else {
            throw ConfigurationError.invalid(key: "mail.smtp.security", reason: "must be starttls or tls")
        }
        self.security = parsed
        user = reader.string(forKey: "mail.smtp.user").flatMap { $0.isEmpty ? nil : $0 }
        password = reader.string(forKey: "mail.smtp.password", isSecret: true)
        fromAddress = reader.string(forKey: "mail.from", default: fromAddress)
        fromName = reader.string(forKey: "mail.fromName", default: fromName)
        trustedCAPath = reader.string(forKey: "mail.trustedCaPath")
        publicBaseURL = reader.string(forKey: "mail.publicBaseUrl")
        folder = reader.string(forKey: "mail.folder")
        deliveryEnabled = reader.bool(forKey: "mail.enabled", default: true)
        maximumAttempts = reader.int(forKey: "mail.maxAttempts", default: maximumAttempts)
        retryBase = .milliseconds(reader.int(forKey: "mail.retryBaseMilliseconds", default: 5000))
        retryMaximum = .seconds(reader.int(forKey: "mail.retryMaxSeconds", default: 1800))
        pollInterval = .milliseconds(reader.int(forKey: "mail.pollMilliseconds", default: 2000))
        lease = .seconds(reader.int(forKey: "mail.leaseSeconds", default: 120))
        timeout = .seconds(reader.int(forKey: "mail.timeoutSeconds", default: 30))
    }

    /// Checks the values; throws a ``ConfigurationError`` naming the key.
    func validate() throws {
        guard UserRules.isValidEmail(fromAddress) else { throw ConfigurationError.invalid(key: "mail.from", reason: "must be an email address") }
        guard !fromName.contains(where: \.isNewline), fromName.unicodeScalars.count <= 64 else {
            throw ConfigurationError.invalid(key: "mail.fromName", reason: "must be one line of at most 64 characters")
        }
        if let smtpHost {
            guard !smtpHost.contains(where: { $0.isWhitespace || $0 == "/" }) else {
                throw ConfigurationError.invalid(key: "mail.smtp.host", reason: "must be a host name or address")
            }
            guard fromAddress != Self().fromAddress else {
                throw ConfigurationError.invalid(key: "mail.from", reason: "is required when mail.smtp.host is set")
            }
        }
        guard (1...65535).contains(resolvedPort) else { throw ConfigurationError.invalid(key: "mail.smtp.port", reason: "must be 1 to 65535") }
        guard (user == nil) == (password == nil) else {
            throw ConfigurationError.invalid(key: "mail.smtp.password", reason: "mail.smtp.user and mail.smtp.password go together")
        }
        if let publicBaseURL {
            guard let components = URLComponents(string: publicBaseURL), ["http", "https"].contains(components.scheme ?? ""),
                  components.host?.isEmpty == false, components.query == nil, components.fragment == nil
            else { throw ConfigurationError.invalid(key: "mail.publicBaseUrl", reason: "must be an absolute http(s) URL without query") }
        }
        guard (1...100).contains(maximumAttempts) else { throw ConfigurationError.invalid(key: "mail.maxAttempts", reason: "must be 1 to 100") }
        guard retryBase > .zero else { throw ConfigurationError.invalid(key: "mail.retryBaseMilliseconds", reason: "must be positive") }
        guard retryMaximum >= retryBase else {
            throw ConfigurationError.invalid(key: "mail.retryMaxSeconds", reason: "must not be below mail.retryBaseMilliseconds")
        }
        guard pollInterval > .zero else { throw ConfigurationError.invalid(key: "mail.pollMilliseconds", reason: "must be positive") }
        guard timeout > .zero else { throw ConfigurationError.invalid(key: "mail.timeoutSeconds", reason: "must be positive") }
        guard lease > timeout else { throw ConfigurationError.invalid(key: "mail.leaseSeconds", reason: "must exceed mail.timeoutSeconds") }
    }
}

/// Account settings: what an unverified address may not do, and how often mails about an account may be asked for.
public struct AccountSettings: Sendable, Equatable {
    /// Whether posting classes and opening chats need a verified address (off by default).
    public var requireVerifiedEmail = false
    /// Mails (password resets, verification and change links) one address or account may be sent per hour; 0 is no limit.
    public var mailsPerAddressPerHour = 5
    /// Password-reset requests one client address may make per hour; 0 is no limit.
    public var resetRequestsPerClientPerHour = 30

    /// The defaults.
    public init() {}

    /// Reads `auth.requireVerifiedEmail`, `auth.mailsPerAddressPerHour` and `auth.resetRequestsPerClientPerHour`.
    init(reader: ConfigReader) {
        requireVerifiedEmail = reader.bool(forKey: "auth.requireVerifiedEmail", default: requireVerifiedEmail)
        mailsPerAddressPerHour = reader.int(forKey: "auth.mailsPerAddressPerHour", default: mailsPerAddressPerHour)
        resetRequestsPerClientPerHour = reader.int(forKey: "auth.resetRequestsPerClientPerHour", default: resetRequestsPerClientPerHour)
    }

    /// Checks the values; throws a ``ConfigurationError`` naming the key.
    func validate() throws {
        guard mailsPerAddressPerHour >= 0 else { throw ConfigurationError.invalid(key: "auth.mailsPerAddressPerHour", reason: "must not be negative") }
        guard resetRequestsPerClientPerHour >= 0 else {
            throw ConfigurationError.invalid(key: "auth.resetRequestsPerClientPerHour", reason: "must not be negative")
        }
    }
}
