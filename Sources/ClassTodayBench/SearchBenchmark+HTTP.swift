import AsyncHTTPClient
import ClassTodayCore
import ClassTodayServer
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

extension SearchBenchmark {
    /// The server itself, built as `serve` builds it, answering HTTP/1.1 on a free loopback port over one of the
    /// benchmark's copies of the dataset (SQLite's, or PostgreSQL's); requests go through one keep-alive connection pool.
    struct HTTPPeer: Sendable {
        /// The server's base URL.
        let baseURL: String

        /// The server could not start listening.
        struct NotListening: Error {}

        /// Runs `body` while the server answers over the database `databaseURL` (`sqlite:///path`, or `postgres://...`;
        /// with `configuration`'s other settings, rate limits off), then shuts the server down.
        static func serving<Value: Sendable>(
            _ databaseURL: String, configuration: AppConfiguration, logger: Logger, _ body: (HTTPPeer) async throws -> Value
        ) async throws -> Value {
            var configuration = configuration
            // The server's own files (images) go to a throwaway folder; the dataset is read where it is.
            let folder = (configuration.dataDirectory as NSString).appendingPathComponent("bench-search-http-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            configuration.dataDirectory = folder
            configuration.databaseURL = databaseURL
            (configuration.host, configuration.port) = ("127.0.0.1", 0)
            (configuration.rateLimitPerMinute, configuration.authRateLimitPerMinute) = (0, 0)
            var serverLogger = logger
            serverLogger.logLevel = max(logger.logLevel, .warning)
            // The application's own storage services close the database when it stops (SQLite's pool, checkpointed):
            // closing it again here used a closed pool and crashed in sqlite3_wal_checkpoint_v2.
            let environment = try await ServerEnvironment.open(configuration, logger: serverLogger)
            let (ports, listening) = AsyncStream.makeStream(of: Int.self)
            let application = buildApplication(environment, logger: serverLogger) { channel in
                if let port = channel.localAddress?.port { listening.yield(port) }
                listening.finish()
            }
            let services = ServiceGroup(configuration: .init(services: [application], logger: serverLogger))
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { listening.finish() }
                    try await services.run()
                }
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next() else {
                    try await group.next()
                    throw NotListening()
                }
                let result: Result<Value, any Error>
                do {
                    try await pointsRead(environment.storage)
                    result = .success(try await body(HTTPPeer(baseURL: "http://127.0.0.1:\(port)")))
                } catch {
                    result = .failure(error)
                }
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return try result.get()
            }
        }

        /// Waits until the server holds its listings' points (read as it starts, ``ClassPointWarmUp``), for a minute at
        /// most: until then its circles walk with SQL, which is not what the bench times.
        private static func pointsRead(_ storage: Storage) async throws {
            guard case .sqlite(let store) = storage else { return }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await store.database.read({ db in try await db.classPoints?.points(db) }) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        /// Asks the server for the first pages of `circles` (places that are not timed), untimed.
        ///
        /// The server opens its own connections to the dataset, so the bench's in-process reads do not warm them: without
        /// this, each timed page was among the first reads of a server just started, each of its pages touched for the
        /// first time through the connection's memory map. Warmed, the server is in the state of one that has served a
        /// while, and each timed page is still its first read of that place.
        func warmUp(_ circles: [ClassSearch.Circle], limit: Int) async throws {
            for circle in circles {
                _ = try await get(Self.searchPath(circle, limit: limit))
            }
        }

        /// The path and query of the first page of the nearest-first search `circle`.
        static func searchPath(_ circle: ClassSearch.Circle, limit: Int) -> String {
            "/v1/classes?lat=\(circle.center.lat)&lon=\(circle.center.lon)&radius=\(circle.radius)&limit=\(limit)"
        }

        /// GETs `path` and returns the body, and the time from sending the request to the body's last byte.
        func get(_ path: String) async throws -> (ByteBuffer, Duration) {
            let start = ContinuousClock.now
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: baseURL + path), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 4 << 20)
            let elapsed = ContinuousClock.now - start
            guard response.status == .ok else {
                throw UnexpectedStatus(path: path, status: Int(response.status.code), body: String(buffer: body))
            }
            return (body, elapsed)
        }

        /// The class objects of a page's body (`items`).
        static func items(in body: ByteBuffer) throws -> [[String: Any]] {
            let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            return json?["items"] as? [[String: Any]] ?? []
        }

        /// A request was not answered 200.
        struct UnexpectedStatus: Error, CustomStringConvertible {
            let path: String
            let status: Int
            let body: String

            var description: String { "GET \(path) answered \(status): \(body)" }
        }
    }
}
