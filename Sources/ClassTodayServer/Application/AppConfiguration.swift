import ClassTodayCore
import Configuration
import Foundation
import Logging
import SystemPackage

/// Everything the server needs to start, resolved from flags, environment variables and config files.
public struct AppConfiguration: Sendable {
    /// The address to listen on.
    public var host: String = "127.0.0.1"
    /// The port to listen on (0 picks a free one).
    public var port: Int = 8080
    /// The folder holding the SQLite database and the images.
    public var dataDirectory: String = "./data"
    /// `sqlite:///path/file.sqlite` or `postgres://...`; nil means `<dataDirectory>/classtoday.sqlite`.
    public var databaseURL: String?
    /// The folder of SQL migrations (`sqlite/` and `postgres/` inside); by default the ones built into the binary's
    /// resource bundle.
    public var migrationsDirectory: String = BuiltInResources.migrationsDirectory
    /// The log level of the server's logger.
    public var logLevel: Logger.Level = .info
    /// Largest accepted JSON request body, in bytes.
    public var maxBodyBytes: Int = 1 << 20
    /// Largest accepted image upload, in bytes.
    public var maxImageBytes: Int = 10 << 20
    /// Largest accepted image, in pixels (width x height), checked from the header at upload and before any
    /// decoding, so that a decompression bomb is refused (413) without being decoded.
    public var maxImagePixels: Int = 50_000_000
    /// How many image variants are made at once (each holds a decoder and an encoder in memory).
    public var imageVariantConcurrency: Int = 2
    /// libvips' shared library, loaded at start: a file name found where the system's loader looks, or a path. When it
    /// cannot be loaded the server runs without image variants.
    public var vipsLibraryPath: String = VipsLibrary.defaultPath
    /// Where image bytes are kept: the disk (the default) or an S3-compatible bucket.
    public var imageStore = ImageStoreSettings()
    /// Requests per minute per client for ordinary routes; 0 turns rate limiting off.
    public var rateLimitPerMinute: Int = 600
    /// Requests per minute per client address for signup and login.
    public var authRateLimitPerMinute: Int = 20
    /// The bcrypt cost factor for new password hashes.
    public var bcryptCost: Int = 12
    /// How long a bearer (access) token stays valid; clients learn it as `expiresIn` and renew the token with its
    /// refresh token.
    public var tokenLifetime: Duration = .seconds(30 * 24 * 3600)
    /// How long a refresh token stays valid; each refresh issues a new one with a new lifetime.
    public var refreshTokenLifetime: Duration = .seconds(90 * 24 * 3600)
    /// The sign-in providers (Apple, Kakao, Google, Naver), each off until configured.
    public var signIn = SignInSettings()
    /// Whether to make SQLite wait for the disk on every commit (`synchronous=FULL`).
    public var durableCommits: Bool = true
    /// How long an uploaded image may stay unattached (no class, profile or message) before it is removed.
    public var unattachedImageGrace: Duration = .seconds(24 * 3600)
    /// How often image removals that failed (the image store was unreachable) are tried again when due.
    public var imageRemovalRetryInterval: Duration = .seconds(30)
    /// How often background clean-up (expired sessions, unreferenced images) runs.
    public var cleanupInterval: Duration = .seconds(3600)
    /// How long a connection may stay idle, with no request arriving and none being answered, before it is closed:
    /// a new connection's first request head must arrive whole within it, and so must the next request or the next
    /// part of a body. Longer than a proxy's own idle timeout for its upstream connections (nginx: 60 s), so that the
    /// proxy, not the server, ends an idle upstream connection. WebSocket connections are kept alive by pings instead.
    public var idleConnectionTimeout: Duration = .seconds(75)
    /// How long a stopping server lets a connection that is mid-request finish before closing it: a request already
    /// sent is answered and its connection closed with the answer; one that stays unfinished is cut off after this.
    public var shutdownGrace: Duration = .seconds(10)
    /// The banned-words list, reread when it changes; by default the one built into the binary's resource bundle
    /// (`Resources/banned-words.txt`, which describes the format).
    public var bannedWordsPath: String = BuiltInResources.bannedWordsPath
    /// How long at least between two checks of the banned-words file's modification time; zero checks on every use.
    public var bannedWordsCheckInterval: Duration = .seconds(2)
    /// The version of the terms of service that users accept now; changing it makes `GET /v1/me` report older
    /// acceptances as out of date.
    public var termsVersion: String = "2026-11-01"
    /// Push notifications (APNs, FCM) and their delivery.
    public var push = PushSettings()
    /// The raster tiles of the web console's street map: a URL with `{z}`, `{x}` and `{y}`, OpenStreetMap's standard
    /// tiles by default; empty for the plain map drawn without tiles (no request leaves for a tile server).
    public var consoleTileURL: String = TileServer.openStreetMap
    /// Mail delivery (SMTP, or files in the data folder).
    public var mail = MailSettings()
    /// Email verification and the limits on account mails.
    public var accounts = AccountSettings()
    /// How many frames each chat WebSocket may send: set in code only (tests), not read from a file or the environment.
    public var chatFrameLimit = FrameLimit()

    /// A connection's frame budget: a burst, then a steady rate; frames beyond it are answered `rate_limited`.
    public struct FrameLimit: Sendable {
        /// Frames at once.
        public var burst: Int
        /// Frames a second after the burst.
        public var perSecond: Double

        /// The budget of `burst` frames, then `perSecond` a second.
        public init(burst: Int = 60, perSecond: Double = 20) {
            (self.burst, self.perSecond) = (burst, perSecond)
        }
    }

    /// The default configuration: 127.0.0.1:8080 with everything under `./data`.
    public init() {}

    /// The SQLite file used when no database URL is configured.
    public var defaultSQLitePath: String {
        (dataDirectory as NSString).appendingPathComponent("classtoday.sqlite")
    }

    /// The folder images are stored in.
    public var imagesDirectory: String {
        (dataDirectory as NSString).appendingPathComponent("images")
    }

    /// The folder of the object store's local cache of images.
    public var imageCacheDirectory: String {
        (dataDirectory as NSString).appendingPathComponent("image-cache")
    }

    /// The folder mails are written to when no SMTP server is configured.
    public var mailDirectory: String {
        mail.folder ?? (dataDirectory as NSString).appendingPathComponent("mail")
    }

    /// The base URL of links in mails: ``MailSettings/publicBaseURL``, or this server's own address.
    public var publicBaseURL: String {
        if let base = mail.publicBaseURL { return base.hasSuffix("/") ? String(base.dropLast()) : base }
        let host = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

extension AppConfiguration {
    /// Reads the configuration from a reader whose providers are already ordered by precedence.
    ///
    /// Every key read here, in ``SignInSettings``, ``PushSettings``, ``MailSettings`` and ``AccountSettings`` is listed
    /// with its environment variable in `docs/configuration.md`; a test reads the keys through an access reporter and
    /// compares them with that page.
    public init(reader: ConfigReader) throws {
        var config = AppConfiguration()
        config.host = reader.string(forKey: "host", default: config.host)
        config.port = reader.int(forKey: "port", default: config.port)
        config.dataDirectory = reader.string(forKey: "dataDir", default: config.dataDirectory)
        config.databaseURL = reader.string(forKey: "databaseUrl", isSecret: true)
        config.migrationsDirectory = reader.string(forKey: "migrationsDir", default: config.migrationsDirectory)
        let level = reader.string(forKey: "logLevel", default: config.logLevel.rawValue)
        guard let logLevel = Logger.Level(rawValue: level.lowercased()) else {
            throw ConfigurationError.invalid(key: "logLevel", reason: "must be one of \(Logger.Level.allCases.map(\.rawValue))")
        }
        config.logLevel = logLevel
        config.maxBodyBytes = reader.int(forKey: "limits.bodyBytes", default: config.maxBodyBytes)
        config.maxImageBytes = reader.int(forKey: "limits.imageBytes", default: config.maxImageBytes)
        config.maxImagePixels = reader.int(forKey: "limits.imagePixels", default: config.maxImagePixels)
        config.imageVariantConcurrency = reader.int(forKey: "images.variantConcurrency", default: config.imageVariantConcurrency)
        config.vipsLibraryPath = reader.string(forKey: "images.vipsLibrary", default: config.vipsLibraryPath)
        config.imageStore = try ImageStoreSettings(reader: reader, environment: ProcessInfo.processInfo.environment)
        config.rateLimitPerMinute = reader.int(forKey: "rateLimit", default: config.rateLimitPerMinute)
        config.authRateLimitPerMinute = reader.int(forKey: "authRateLimit", default: config.authRateLimitPerMinute)
        config.bcryptCost = reader.int(forKey: "bcrypt.cost", default: config.bcryptCost)
        config.tokenLifetime = .seconds(reader.int(forKey: "tokens.lifetimeSeconds", default: 30 * 24 * 3600))
        config.refreshTokenLifetime = .seconds(reader.int(forKey: "tokens.refreshLifetimeSeconds", default: 90 * 24 * 3600))
        config.signIn = SignInSettings(reader: reader)
        config.durableCommits = reader.bool(forKey: "sqlite.durableCommits", default: config.durableCommits)
        config.unattachedImageGrace = .seconds(reader.int(forKey: "images.unattachedGraceSeconds", default: 24 * 3600))
        config.cleanupInterval = .seconds(reader.int(forKey: "cleanup.intervalSeconds", default: 3600))
        config.imageRemovalRetryInterval = .seconds(reader.int(forKey: "images.removalRetrySeconds", default: 30))
        config.idleConnectionTimeout = .seconds(reader.int(forKey: "connections.idleSeconds", default: 75))
        config.shutdownGrace = .seconds(reader.int(forKey: "connections.shutdownGraceSeconds", default: 10))
        config.bannedWordsPath = reader.string(forKey: "bannedWords.path", default: config.bannedWordsPath)
        config.bannedWordsCheckInterval = .seconds(reader.int(forKey: "bannedWords.checkSeconds", default: 2))
        config.termsVersion = reader.string(forKey: "terms.version", default: config.termsVersion)
        config.push = PushSettings(reader: reader)
        config.consoleTileURL = reader.string(forKey: "console.tileUrl", default: config.consoleTileURL)
        config.mail = try MailSettings(reader: reader)
        config.accounts = AccountSettings(reader: reader)
        try config.validate()
        self = config
    }

    /// Checks that the values can work together; throws a ``ConfigurationError`` naming the key.
    public func validate() throws {
        guard (0...65535).contains(port) else { throw ConfigurationError.invalid(key: "port", reason: "must be 0 to 65535") }
        guard (4...31).contains(bcryptCost) else { throw ConfigurationError.invalid(key: "bcrypt.cost", reason: "must be 4 to 31") }
        guard maxBodyBytes > 0 else { throw ConfigurationError.invalid(key: "limits.bodyBytes", reason: "must be positive") }
        guard maxImageBytes > 0 else { throw ConfigurationError.invalid(key: "limits.imageBytes", reason: "must be positive") }
        guard maxImagePixels > 0 else { throw ConfigurationError.invalid(key: "limits.imagePixels", reason: "must be positive") }
        guard (1...64).contains(imageVariantConcurrency) else {
            throw ConfigurationError.invalid(key: "images.variantConcurrency", reason: "must be 1 to 64")
        }
        guard rateLimitPerMinute >= 0, authRateLimitPerMinute >= 0 else {
            throw ConfigurationError.invalid(key: "rateLimit", reason: "must not be negative")
        }
        guard unattachedImageGrace >= .zero else {
            throw ConfigurationError.invalid(key: "images.unattachedGraceSeconds", reason: "must not be negative")
        }
        guard imageRemovalRetryInterval > .zero else {
            throw ConfigurationError.invalid(key: "images.removalRetrySeconds", reason: "must be positive")
        }
        guard cleanupInterval > .zero else { throw ConfigurationError.invalid(key: "cleanup.intervalSeconds", reason: "must be positive") }
        guard idleConnectionTimeout > .zero else {
            throw ConfigurationError.invalid(key: "connections.idleSeconds", reason: "must be positive")
        }
        guard shutdownGrace > .zero else {
            throw ConfigurationError.invalid(key: "connections.shutdownGraceSeconds", reason: "must be positive")
        }
        guard tokenLifetime > .zero else { throw ConfigurationError.invalid(key: "tokens.lifetimeSeconds", reason: "must be positive") }
        guard refreshTokenLifetime > .zero else {
            throw ConfigurationError.invalid(key: "tokens.refreshLifetimeSeconds", reason: "must be positive")
        }
        try signIn.validate()
        try push.validate()
        try mail.validate()
        try imageStore.validate()
        try accounts.validate()
        guard bannedWordsCheckInterval >= .zero else {
            throw ConfigurationError.invalid(key: "bannedWords.checkSeconds", reason: "must not be negative")
        }
        guard !vipsLibraryPath.isEmpty else { throw ConfigurationError.invalid(key: "images.vipsLibrary", reason: "must not be empty") }
        guard !bannedWordsPath.isEmpty else { throw ConfigurationError.invalid(key: "bannedWords.path", reason: "must not be empty") }
        guard UserRules.termsVersionLength.contains(termsVersion.unicodeScalars.count), termsVersion.trimmingWhitespace() == termsVersion else {
            throw ConfigurationError.invalid(key: "terms.version", reason: "must be 1 to \(UserRules.termsVersionLength.upperBound) characters without surrounding spaces")
        }
        if let databaseURL { _ = try DatabaseLocation(url: databaseURL) }
        _ = try TileServer(template: consoleTileURL)
    }

    /// Where the database lives, resolved from ``databaseURL`` or the data folder.
    public func databaseLocation() throws -> DatabaseLocation {
        try databaseURL.map { try DatabaseLocation(url: $0) } ?? .sqlite(path: defaultSQLitePath)
    }
}

/// The database the server stores its data in.
public enum DatabaseLocation: Sendable, Equatable {
    /// An SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL server, by connection URL.
    case postgres(url: String)

    /// Parses `sqlite:///path/file.sqlite` (or `sqlite:relative.sqlite`) and `postgres://` / `postgresql://` URLs.
    public init(url: String) throws {
        if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            guard !path.isEmpty else { throw ConfigurationError.invalid(key: "databaseUrl", reason: "sqlite URL has no path") }
            self = .sqlite(path: path)
        } else if url.hasPrefix("sqlite:") {
            self = .sqlite(path: String(url.dropFirst("sqlite:".count)))
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(url: url)
        } else {
            throw ConfigurationError.invalid(key: "databaseUrl", reason: "must start with sqlite:// or postgres://")
        }
    }
}

/// A configuration value that cannot be used.
public enum ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// `key` has a value that breaks a rule.
    case invalid(key: String, reason: String)

    /// A message for the operator.
    public var description: String {
        switch self {
        case .invalid(let key, let reason): "configuration '\(key)' \(reason)"
        }
    }
}

extension AppConfiguration {
    /// The environment variable naming the JSON config file, read by the command line when no `--config` is given.
    public static let configFileVariable = "CLASSTODAY_CONFIG"

    /// Resolves the configuration from its three sources, highest precedence first: `flags` (keys as in
    /// ``init(reader:)``), `environment` variables (`CLASSTODAY_` + the key in upper snake case), and the JSON
    /// `configFile` (`config/classtoday.json` when none is named and that file exists). `accessReporter`, when given,
    /// learns every key read and what each source held for it.
    public static func resolve(
        flags: [String: ConfigValue], environment: [String: String], configFile: String?,
        accessReporter: (any AccessReporter)? = nil
    ) async throws -> AppConfiguration {
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in flags {
            flagValues[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = value
        }
        let file = try await FileProvider<JSONSnapshot>(
            filePath: FilePath(configFile ?? "config/classtoday.json"), allowMissing: configFile == nil)
        return try AppConfiguration(reader: ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flagValues),
            EnvironmentVariablesProvider(environmentVariables: environment,
                                         secretsSpecifier: .specific(["CLASSTODAY_DATABASE_URL", "CLASSTODAY_MAIL_SMTP_PASSWORD"]))
                .prefixKeys(with: "classtoday"),
            file,
        ], accessReporter: accessReporter))
    }
}
