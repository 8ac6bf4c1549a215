import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// A PostgreSQL database shared by several server nodes: a `PostgresClient` connection pool running in the
/// background from ``open(url:logger:)`` until ``close()``.
public final class PostgresStore: Service, Sendable {
    /// The pool every repository queries through.
    public let client: PostgresClient
    /// The backend seam over the pool, which the repositories run on.
    public let database: PostgresDatabase
    /// How to open a connection of one's own (the chat bus's listener), to the same server as the pool.
    let connectionConfiguration: PostgresConnection.Configuration
    private let running: Task<Void, Never>

    private init(endpoint: Endpoint, logger: Logger) throws {
        var configuration = PostgresClient.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
            database: endpoint.database, tls: try endpoint.clientTLS())
        // A pool of a fixed size: a connection given back to a pool above its minimum starts a timer task there (its
        // idle timeout), which the next lease cancels, waking other threads at every lease (a statement outside a
        // transaction, or a transaction): a circle page on PostgreSQL took 0.96-1.06 ms in-process with it, 0.85-0.99
        // without.
        configuration.options.minimumConnections = endpoint.poolSize
        configuration.options.maximumConnections = endpoint.poolSize
        // No pings from the pool: each connection given back would start a keep-alive timer task, which the next lease
        // cancels, waking two threads per statement (circle pages 1.59-1.71x SQLite's in-process with them, 1.45-1.61x
        // without). The server probes each connection with TCP keepalives instead (`keepaliveParameters`), which keep a
        // proxy's or a NAT's idle flow open; a connection that ends anyway closes its socket, and the pool replaces it.
        configuration.options.keepAliveBehavior = nil
        // The planner prices a search statement's unread branches (a crowded cell's read, gated off by its LIMIT) in
        // full, and compiling them would take longer than running the search.
        configuration.options.additionalStartupParameters = [("jit", "off")] + Self.keepaliveParameters
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.database = PostgresDatabase(client: client, logger: logger)
        var listening = PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
            database: endpoint.database, tls: try endpoint.connectionTLS())
        listening.options.additionalStartupParameters = Self.keepaliveParameters
        self.connectionConfiguration = listening
        self.running = Task { await client.run() }
    }

    /// The server's TCP keepalives on each connection, the pool's and the chat bus's: a probe after 30 s idle, then every
    /// 10 s, the connection ended after 3 unanswered.
    static let keepaliveParameters = [("tcp_keepalives_idle", "30"), ("tcp_keepalives_interval", "10"), ("tcp_keepalives_count", "3")]

    /// Starts a pool for a `postgres://user:password@host:port/database[?sslmode=disable|prefer|require&poolSize=N]` URL;
    /// throws ``ConfigurationError`` naming `databaseUrl` when the URL is malformed.
    public static func open(url: String, logger: Logger) throws -> PostgresStore {
        try PostgresStore(endpoint: try Endpoint(url: url), logger: logger)
    }

    /// Stops the pool; queries afterwards fail.
    public func close() {
        running.cancel()
    }

    /// As a service: keeps the pool until graceful shutdown, then closes it. List it before the services that
    /// query it, which then stop first.
    public func run() async throws {
        try? await gracefulShutdown()
        close()
    }

    /// The parts of a connection URL.
    struct Endpoint: Equatable {
        var host: String
        var port: Int
        var user: String
        var password: String?
        var database: String?
        /// `disable`, `prefer` (the default) or `require`.
        var sslMode: String
        /// The connections the pool keeps open (`poolSize`, 20 by default).
        var poolSize: Int

        /// Parses `postgres://` and `postgresql://` URLs.
        init(url: String) throws {
            func invalid(_ reason: String) -> ConfigurationError { .invalid(key: "databaseUrl", reason: reason) }
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                  let host = components.host, !host.isEmpty
            else { throw invalid("must look like postgres://user:password@host:port/database") }
            guard let user = components.user, !user.isEmpty else { throw invalid("names no user") }
            self.host = host
            self.port = components.port ?? 5432
            self.user = user
            self.password = components.password
            self.database = components.path.split(separator: "/").first.map(String.init)
            self.sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
            guard ["disable", "prefer", "require"].contains(sslMode) else { throw invalid("sslmode must be disable, prefer or require") }
            let poolSize = components.queryItems?.first { $0.name == "poolSize" }?.value ?? "20"
            guard let size = Int(poolSize), (1...500).contains(size) else { throw invalid("poolSize must be a number from 1 to 500") }
            self.poolSize = size
        }

        func clientTLS() throws -> PostgresClient.Configuration.TLS {
            switch sslMode {
            case "disable": .disable
            case "require": .require(.makeClientConfiguration())
            default: .prefer(.makeClientConfiguration())
            }
        }

        func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
            switch sslMode {
            case "disable": .disable
            case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        }
    }

    /// Applies pending migrations, one transaction per file, and returns the ones this call applied. A transaction-scoped
    /// advisory lock makes nodes starting together apply each file once.
    @discardableResult
    public func migrate(_ migrations: [Migration], logger: Logger) async throws -> [Migration] {
        // Under the lock too: two nodes creating the table at once would collide in the catalog.
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at bigint NOT NULL)
                """, logger: logger)
        }
        var applied: [AppliedMigration] = []
        for try await (version, checksum) in try await client.query("SELECT version, checksum FROM schema_migrations", logger: logger)
            .decode((String, String).self) {
            applied.append(AppliedMigration(version: version, checksum: checksum))
        }
        let pending = try MigrationPlan.pending(files: migrations, applied: applied)
        var appliedHere: [Migration] = []
        for migration in pending {
            let didApply = try await client.withTransaction(logger: logger) { connection -> Bool in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
                // Another node may have applied it since we looked.
                let done = try await connection.query(
                    "SELECT 1 FROM schema_migrations WHERE version = \(migration.version)", logger: logger
                ).collect().isEmpty == false
                guard !done else { return false }
                // The extended protocol runs one statement at a time.
                for statement in SQLStatements.split(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO schema_migrations (version, name, checksum, applied_at)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum), \(Date().millisecondsSince1970))
                    """, logger: logger)
                return true
            }
            if didApply {
                appliedHere.append(migration)
                logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
        return appliedHere
    }

    /// Whether the database answers a trivial query.
    public func isHealthy() async -> Bool {
        (try? await client.query("SELECT 1").collect().count) == 1
    }

    /// The advisory lock key migrations hold ("ctmigr" in ASCII).
    private static let migrationLock: Int64 = 0x6374_6D69_6772
}
