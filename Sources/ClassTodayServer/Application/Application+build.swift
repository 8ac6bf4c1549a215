import AsyncHTTPClient
import ClassTodayCore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// The server's long-lived parts, built once and shared by the routes.
public struct ServerEnvironment: Sendable {
    /// The configuration the server was built from.
    public let configuration: AppConfiguration
    /// The database.
    public let storage: Storage
    /// Users.
    public let users: any UserRepository
    /// Bearer-token sessions and their refresh tokens.
    public let sessions: any SessionRepository
    /// Sign-in provider identities linked to accounts.
    public let identities: any IdentityRepository
    /// Class listings and favourites.
    public let classes: any ClassRepository
    /// Image bytes, content-addressed on disk or in an object store.
    public let images: any ImageRepository
    /// Image records.
    public let imageRecords: any ImageRecordRepository
    /// Chat rooms and messages.
    public let chats: any ChatRepository
    /// Matches and reviews.
    public let matches: any MatchRepository
    /// Alerts and notifications.
    public let alerts: any AlertRepository
    /// Blocks between users.
    public let blocks: any BlockRepository
    /// Reports, moderation actions and the audit log.
    public let moderation: any ModerationRepository
    /// Request metrics rendered by `/metrics`.
    public let metrics: PrometheusCollectorRegistry
    /// Carries chat events between the hubs of every node: in-process on SQLite, `LISTEN/NOTIFY` on PostgreSQL.
    public let chatBus: any ChatBus
    /// The banned-words list, reread when its file changes.
    public let bannedWords: BannedWordsFile
    /// Push devices and per-room mutes.
    public let devices: any DeviceRepository
    /// The push outbox and its deliveries.
    public let pushQueue: any PushQueue
    /// The keys of the configured push services, read at start-up.
    public let pushCredentials: PushCredentials
    /// The mail outbox.
    public let mailQueue: any MailQueue
    /// Single-use account tokens (password reset, email verification and change) and their mails.
    public let accountTokens: any AccountTokenRepository
    /// Where mails go: the SMTP server, or the mail folder without one.
    let mailTransport: any MailTransport
    /// The mail templates, read and checked at start-up.
    let mailTemplates: MailTemplates

    /// Opens the database named by `configuration`, applies pending migrations and builds the repositories. With
    /// `requiringBannedWords` (a server that will take requests) the banned-words list is read first, and a missing or
    /// bad list is a ``ConfigurationError`` before the database is opened; otherwise it is read on first use.
    public static func open(
        _ configuration: AppConfiguration, logger: Logger, requiringBannedWords: Bool = false
    ) async throws -> ServerEnvironment {
        let bannedWords = BannedWordsFile(
            path: configuration.bannedWordsPath, checkInterval: configuration.bannedWordsCheckInterval, logger: logger)
        if requiringBannedWords {
            do {
                try bannedWords.load()
            } catch {
                throw ConfigurationError.invalid(key: "bannedWords.path", reason: "cannot be used: \(error)")
            }
        }
        let pushCredentials = try PushCredentials.load(configuration.push)
        let mailTemplates: MailTemplates
        let mailTransport: any MailTransport
        do {
            mailTemplates = try MailTemplates.bundled()
            mailTransport = if configuration.mail.smtpHost == nil {
                MailFolderTransport(folder: configuration.mailDirectory, logger: logger)
            } else {
                try SMTPClient(settings: configuration.mail, logger: logger)
            }
        } catch {
            throw ConfigurationError.invalid(key: "mail", reason: "cannot be used: \(error)")
        }
        let images = try imageRepository(configuration, logger: logger)
        func migrations(_ backend: String) throws -> [Migration] {
            try Migration.load(from: URL(fileURLWithPath: configuration.migrationsDirectory).appendingPathComponent(backend).path)
        }
        let storage: Storage
        let chatBus: any ChatBus
        switch try configuration.databaseLocation() {
        case .sqlite(let path):
            let store = try SQLiteStore.open(path: path, durableCommits: configuration.durableCommits, logger: logger)
            try await store.migrate(try migrations("sqlite"), logger: logger)
            storage = .sqlite(store)
            chatBus = InProcessChatBus()
        case .postgres(let url):
            let store = try PostgresStore.open(url: url, logger: logger)
            do {
                try await store.migrate(try migrations("postgres"), logger: logger)
            } catch {
                store.close()
                throw error
            }
            storage = .postgres(store)
            chatBus = PostgresChatBus(store: store, logger: logger)
        }
        // Every repository is written once on the seam; only the storage and the chat bus differ per backend.
        let database = storage.database
        return ServerEnvironment(
            configuration: configuration, storage: storage, users: SQLUserRepository(database: database),
            sessions: SQLSessionRepository(database: database), identities: SQLIdentityRepository(database: database), classes: SQLClassRepository(database: database),
            images: images, imageRecords: SQLImageRecordRepository(database: database, images: images, logger: logger),
            chats: SQLChatRepository(database: database), matches: SQLMatchRepository(database: database),
            alerts: SQLAlertRepository(database: database), blocks: SQLBlockRepository(database: database),
            moderation: SQLModerationRepository(database: database), metrics: PrometheusCollectorRegistry(), chatBus: chatBus,
            bannedWords: bannedWords, devices: SQLDeviceRepository(database: database), pushQueue: SQLPushQueue(database: database),
            pushCredentials: pushCredentials, mailQueue: SQLMailQueue(database: database),
            accountTokens: SQLAccountTokenRepository(database: database), mailTransport: mailTransport, mailTemplates: mailTemplates)
    }

    /// The image store `configuration` names: the disk, or an S3-compatible bucket with a cache on this node's disk.
    private static func imageRepository(_ configuration: AppConfiguration, logger: Logger) throws -> any ImageRepository {
        let disk = try DiskImageRepository(root: configuration.imagesDirectory)
        switch configuration.imageStore.kind {
        case .disk:
            logger.debug("images are kept on disk", metadata: ["folder": "\(configuration.imagesDirectory)"])
            return disk
        case .s3:
            let settings = configuration.imageStore.s3
            logger.info("images are kept in an object store", metadata: [
                "endpoint": "\(settings.resolvedEndpoint)", "bucket": "\(settings.bucket)", "prefix": "\(settings.prefix)",
            ])
            return try S3ImageRepository(
                s3: S3Client(settings: settings), cacheFolder: configuration.imageCacheDirectory,
                cacheMaxBytes: configuration.imageStore.cacheMaxBytes, logger: logger)
        }
    }

    /// What must run beside the server for this storage: the SQLite pool (closed last, its log emptied and removed)
    /// and the first read of the listings' points, or the PostgreSQL pool (closed last) and chat bus listener.
    func storageServices(logger: Logger) -> [any Service] {
        switch storage {
        case .sqlite(let store):
            [SQLiteClosing(store: store, logger: logger), ClassPointWarmUp(store: store, logger: logger),
             KeywordIndexBuilder(build: store.keywordIndexBuild, gauge: metrics.makeGauge(descriptor: KeywordIndexBuilder.descriptor), logger: logger)]
        case .postgres(let store): [store] + ((chatBus as? PostgresChatBus).map { [$0] } ?? [])
        }
    }

    /// Grants (`true`) or revokes the operator role of the user with `email`, recorded in the audit log without an
    /// operator: what `classtoday admin grant|revoke EMAIL` does (the API cannot). Returns the user's id; throws
    /// ``DomainError/notFound(_:)`` when no account has the email.
    public func setOperator(email: String, _ isOperator: Bool) async throws -> String {
        try await moderation.setOperator(email: email, isOperator, at: Date())
    }

    /// Closes the database connections of a command that opened the environment without running the server.
    public func close() {
        switch storage {
        case .sqlite(let store): store.close(logger: Logger(label: "classtoday.sqlite"))
        case .postgres(let store): store.close()
        }
    }

    /// One run of the background clean-up: expired sessions, refresh tokens and account tokens, then images nothing
    /// references any more.
    public func cleanUp(now: Date = Date()) async throws {
        try await sessions.deleteExpired(before: now)
        try await accountTokens.deleteExpired(before: now)
        try await imageRecords.collectGarbage(uploadedBefore: now.addingTimeInterval(-configuration.unattachedImageGrace.seconds))
    }
}

/// Builds the whole server from its configuration: the one composition root, used by `serve` and the tests.
public func buildApplication(_ configuration: AppConfiguration, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "classtoday")
    logger.logLevel = configuration.logLevel
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    logger.info("built-in resources", metadata: [
        "bundle": "\(BuiltInResources.bundlePath)", "migrations": "\(configuration.migrationsDirectory)",
        "bannedWords": "\(configuration.bannedWordsPath)",
    ])
    let environment = try await ServerEnvironment.open(configuration, logger: logger, requiringBannedWords: true)
    return buildApplication(environment, logger: logger)
}

/// Builds the server over an already opened environment. `onServerRunning` hears the listening channel once the server
/// is up (its local address names the port bound when the configuration asks for port 0).
public func buildApplication(
    _ environment: ServerEnvironment, logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let configuration = environment.configuration
    let pushes = PushDeliveryService(
        queue: environment.pushQueue, credentials: environment.pushCredentials, settings: configuration.push,
        online: { [bus = environment.chatBus] userIds in await bus.online(among: userIds) }, metrics: environment.metrics, logger: logger)
    let hub = ChatHub(bus: environment.chatBus, chats: environment.chats, bannedWords: environment.bannedWords, logger: logger,
                      frameLimit: configuration.chatFrameLimit, pushQueued: { pushes.pushQueued() })
    let fanOut = AlertFanOut(alerts: environment.alerts, hub: hub, logger: logger)
    let accountMail = AccountMailParts(environment, logger: logger)
    let router = buildRouter(environment, hub: hub, fanOut: fanOut, accountMail: accountMail, logger: logger)
    return Application(
        router: router,
        server: .hardenedHTTP1WebSocketUpgrade(
            webSocketRouter: router,
            webSocket: .init(maxFrameSize: ChatSession.maximumFrameSize, autoPing: .enabled(timePeriod: .seconds(30))),
            idleTimeout: configuration.idleConnectionTimeout, shutdownGrace: configuration.shutdownGrace),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "classtoday", backlog: 4096),
        services: environment.storageServices(logger: logger) + [
            hub,
            fanOut,
            KeywordIndexUpgrade(classes: environment.classes, logger: logger),
            pushes,
            accountMail.delivery,
            accountMail.resetRequests,
            PeriodicJob(name: "clean-up", interval: configuration.cleanupInterval, logger: logger) {
                try await environment.cleanUp()
            },
            PeriodicJob(name: "image-removals", interval: configuration.imageRemovalRetryInterval, logger: logger) {
                _ = try await environment.imageRecords.removeQueuedFiles(now: Date())
            },
            PeriodicJob(name: "moderation-queue-age", interval: ModerationQueueGauge.interval, logger: logger) {
                try await ModerationQueueGauge(environment).refresh()
            },
        ],
        onServerRunning: onServerRunning,
        logger: logger)
}

/// The parts of account mail that run beside the routes: the delivery service and the queue of reset requests.
struct AccountMailParts {
    /// Delivers the mail outbox.
    let delivery: MailDeliveryService
    /// Handles password-reset requests after they were answered.
    let resetRequests: PasswordResetRequests
    /// Writes the mails.
    let mails: AccountMails

    /// The parts over `environment`.
    init(_ environment: ServerEnvironment, logger: Logger) {
        delivery = MailDeliveryService(environment, logger: logger)
        mails = AccountMails(templates: environment.mailTemplates, baseURL: environment.configuration.publicBaseURL)
        resetRequests = PasswordResetRequests(tokens: environment.accountTokens, mails: mails,
                                              mailQueued: { [delivery] in delivery.mailQueued() }, logger: logger)
    }
}

/// The router with every route and middleware.
func buildRouter(
    _ environment: ServerEnvironment, hub: ChatHub, fanOut: AlertFanOut, accountMail: AccountMailParts? = nil, logger: Logger
) -> Router<AppRequestContext> {
    let configuration = environment.configuration
    let accountMail = accountMail ?? AccountMailParts(environment, logger: logger)
    let mailQueued: @Sendable () -> Void = { [delivery = accountMail.delivery] in delivery.mailQueued() }
    let routes = RouteTable()
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: UpgradeRefusalMiddleware())
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: MetricsMiddleware(registry: environment.metrics))
    router.add(middleware: RateLimitMiddleware(
        credentialLimiter: RateLimiter(perMinuteOrOff: configuration.authRateLimitPerMinute),
        apiLimiter: RateLimiter(perMinuteOrOff: configuration.rateLimitPerMinute)))
    router.add(middleware: ProblemMiddleware(routes: routes))
    router.add(middleware: BodyLimitMiddleware(maxBytes: configuration.maxBodyBytes))
    router.add(middleware: TokenAuthenticator(sessions: environment.sessions))

    let variantRenderer = ImageVariantAvailability.renderer(for: configuration, metrics: environment.metrics, logger: logger)
    OperationsController(storage: environment.storage, registry: environment.metrics, imageVariantsAvailable: variantRenderer != nil)
        .addRoutes(to: router)
    do {
        let tiles = try TileServer(template: configuration.consoleTileURL)
        ConsoleController(assets: try ConsoleAssets.bundled(), tiles: tiles).addRoutes(to: router)
    } catch {
        logger.error("the web console's files are missing or its tile server is invalid; /console is not served", metadata: ["error": "\(error)"])
    }

    let api = router.group("v1")
    let issuer = SessionIssuer(
        sessions: environment.sessions, hub: hub, accessLifetime: configuration.tokenLifetime, refreshLifetime: configuration.refreshTokenLifetime)
    let hasher = PasswordHasher(cost: configuration.bcryptCost)
    AccountsController(
        users: environment.users, imageRecords: environment.imageRecords, hasher: hasher, issuer: issuer,
        bannedWords: environment.bannedWords, termsVersion: configuration.termsVersion,
        eraser: AccountEraser(users: environment.users, matches: environment.matches, imageRecords: environment.imageRecords,
                              database: environment.storage.database, hub: hub, fanOut: fanOut),
        tokens: environment.accountTokens, mails: accountMail.mails, mailQueued: mailQueued
    ).addRoutes(to: api)
    AccountRecoveryController(
        users: environment.users, tokens: environment.accountTokens, hasher: hasher, issuer: issuer, hub: hub,
        mails: accountMail.mails, resetRequests: accountMail.resetRequests, limits: AccountMailLimits(configuration.accounts),
        mailQueued: mailQueued, termsVersion: configuration.termsVersion
    ).addRoutes(to: api)
    SignInController(
        providers: IdentityProviders(configuration.signIn, client: .shared, logger: logger), identities: environment.identities,
        issuer: issuer, bannedWords: environment.bannedWords, termsVersion: configuration.termsVersion
    ).addRoutes(to: api)
    ClassesController(classes: environment.classes, users: environment.users, fanOut: fanOut, bannedWords: environment.bannedWords,
                      requireVerifiedEmail: configuration.accounts.requireVerifiedEmail)
        .addRoutes(to: api)
    RecommendationsController(classes: environment.classes).addRoutes(to: api)
    AlertsController(alerts: environment.alerts).addRoutes(to: api)
    ImagesController(
        records: environment.imageRecords, images: environment.images,
        variants: ImageVariantMaker(
            images: environment.images, renderer: variantRenderer, concurrency: configuration.imageVariantConcurrency),
        upload: ImageUpload(limit: configuration.maxImageBytes, spoolFolder: (configuration.imagesDirectory as NSString).appendingPathComponent("tmp")),
        maxPixels: configuration.maxImagePixels
    ).addRoutes(to: api)
    ChatController(chats: environment.chats, devices: environment.devices, hub: hub, logger: logger,
                   requireVerifiedEmail: configuration.accounts.requireVerifiedEmail).addRoutes(to: api)
    DevicesController(devices: environment.devices).addRoutes(to: api)
    MatchesController(matches: environment.matches, classes: environment.classes, users: environment.users, hub: hub, fanOut: fanOut)
        .addRoutes(to: api)
    BlocksController(blocks: environment.blocks, hub: hub).addRoutes(to: api)
    ModerationController(moderation: environment.moderation, hub: hub, queueGauge: ModerationQueueGauge(environment)).addRoutes(to: api)

    routes.install(router.routes.map { (path: $0.path.description, method: $0.method) })
    return router
}
