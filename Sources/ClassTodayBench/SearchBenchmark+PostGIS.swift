import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging
import PostgresNIO

extension SearchBenchmark {
    /// The benchmark dataset's points in PostGIS, the engine a user would pick instead, asking the server's nearest-first
    /// question: the nearest open classes within a radius, ids and distances (on the sphere, as the server measures).
    struct PostGISPeer: Sendable {
        /// The table the points are loaded into (and kept for later runs).
        static let table = "bench_peer_classes"

        /// The connection pool.
        let store: PostgresStore
        /// PostgreSQL's and PostGIS's versions, for the report.
        let versions: String
        /// The radius of the sphere PostGIS measures on (the mean radius of its WGS 84 spheroid).
        let sphereRadius: Double

        /// Opens the PostGIS database at `url` (one connection) and loads the listings of `points` that a search can
        /// find (id, location, status, creation time) into ``table``, with a GiST index on the location, unless it holds
        /// as many already.
        static func prepare(url: String, points: SQLiteStore, logger: Logger) async throws -> PostGISPeer {
            let store = try PostgresStore.open(url: try singleConnection(url), logger: logger)
            let client = store.client
            // PostGIS prices its functions high, so PostgreSQL would compile every nearest-first query to machine code
            // (a JIT pass of some 100 ms) for a plan that reads a few index pages. The pool's one connection keeps this.
            try await client.query("SET jit = off", logger: logger)
            try await client.query("CREATE EXTENSION IF NOT EXISTS postgis", logger: logger)
            let source: SQLStatement = "FROM classes WHERE deleted_at IS NULL AND hidden_at IS NULL AND lat IS NOT NULL AND lon IS NOT NULL"
            let expected: Int = try await points.database.row("SELECT COUNT(*) AS count \(source)")?["count"] ?? 0
            if try await count(client, logger: logger) != expected {
                try await load(from: points, source: source, expected: expected, into: client, logger: logger)
            }
            var versions = ""
            for try await (postgres, postgis) in try await client.query(
                "SELECT current_setting('server_version'), postgis_lib_version()", logger: logger
            ).decode((String, String).self) {
                versions = "PostgreSQL \(postgres), PostGIS \(postgis)"
            }
            // One degree of a great circle is R·π/180 on the sphere.
            var sphereRadius = Double.nan
            for try await degree in try await client.query(
                "SELECT ST_Distance('POINT(0 0)'::geography, 'POINT(0 1)'::geography, false)", logger: logger
            ).decode(Double.self) {
                sphereRadius = degree * 180 / .pi
            }
            return PostGISPeer(store: store, versions: versions, sphereRadius: sphereRadius)
        }

        /// `url` with a pool of one connection, so that a session setting holds for every query.
        private static func singleConnection(_ url: String) throws -> String {
            guard var components = URLComponents(string: url) else { throw ConfigurationError.invalid(key: "peers", reason: "is not a URL") }
            components.queryItems = (components.queryItems ?? []).filter { $0.name != "poolSize" } + [URLQueryItem(name: "poolSize", value: "1")]
            return components.string ?? url
        }

        /// The rows of ``table``, or -1 when it does not exist.
        private static func count(_ client: PostgresClient, logger: Logger) async throws -> Int {
            let exists = try await client.query("SELECT to_regclass(\(table)) IS NOT NULL", logger: logger).decode(Bool.self)
                .reduce(false) { $0 || $1 }
            guard exists else { return -1 }
            return try await client.query("SELECT COUNT(*) FROM \(unescaped: table)", logger: logger).decode(Int.self)
                .reduce(0) { $0 + $1 }
        }

        /// Replaces ``table`` with the listings `source` selects from `points`, in batches, then indexes and analyzes it.
        private static func load(
            from points: SQLiteStore, source: SQLStatement, expected: Int, into client: PostgresClient, logger: Logger
        ) async throws {
            logger.info("loading the dataset's points into PostGIS", metadata: ["listings": "\(expected)"])
            try await client.query("DROP TABLE IF EXISTS \(unescaped: table)", logger: logger)
            try await client.query("""
                CREATE TABLE \(unescaped: table) (id text COLLATE "C" PRIMARY KEY, status text NOT NULL, created_at bigint NOT NULL,
                    geog geography(Point, 4326) NOT NULL)
                """, logger: logger)
            let batchSize = 50_000
            var after: Int64 = 0
            var loaded = 0
            while true {
                var selection: SQLStatement = "SELECT rowid, id, lat, lon, status, created_at "
                selection.append(source)
                selection.append(" AND rowid > \(after) ORDER BY rowid LIMIT \(batchSize)")
                let rows = try await points.database.rows(selection)
                guard let last = rows.last else { break }
                let ids: [String] = try rows.map { try $0["id"] }, statuses: [String] = try rows.map { try $0["status"] }
                let lats: [Double] = try rows.map { try $0["lat"] }, lons: [Double] = try rows.map { try $0["lon"] }
                let createdAt: [Int64] = try rows.map { try $0["created_at"] }
                try await client.query("""
                    INSERT INTO \(unescaped: table) (id, status, created_at, geog)
                    SELECT id, status, created_at, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography
                    FROM unnest(\(ids)::text[], \(statuses)::text[], \(createdAt)::int8[], \(lats)::float8[], \(lons)::float8[])
                        AS t(id, status, created_at, lat, lon)
                    """, logger: logger)
                after = try last["rowid"]
                loaded += rows.count
                logger.info("loaded points into PostGIS", metadata: ["listings": "\(loaded)"])
            }
            try await client.query("CREATE INDEX \(unescaped: table)_by_geog ON \(unescaped: table) USING gist (geog)", logger: logger)
            try await client.query("ANALYZE \(unescaped: table)", logger: logger)
        }

        /// The `limit` nearest open listings within `radius` metres of `center`, nearest first (ties by id), with their
        /// distances on the sphere; and how long PostGIS took, round trip included.
        func nearest(center: GeoPoint, radius: Double, limit: Int) async throws -> ([(id: String, distance: Double)], Duration) {
            let start = ContinuousClock.now
            var nearest: [(id: String, distance: Double)] = []
            for try await row in try await store.client.execute(NearestQuery(center: center, radius: radius, limit: limit)) {
                nearest.append(row)
            }
            return (nearest, ContinuousClock.now - start)
        }

        /// The statement of ``nearest(center:radius:limit:)`` with its values written in, for another client.
        static func nearestSQL(center: GeoPoint, radius: Double, limit: Int) -> String {
            [("$1", "\(center.lon)"), ("$2", "\(center.lat)"), ("$3", "\(radius)"), ("$4", "\(limit)")].reduce(NearestQuery.sql) {
                $0.replacingOccurrences(of: $1.0, with: $1.1)
            }
        }
    }

    /// PostGIS's nearest-first page, prepared once per connection: the index orders by distance (`<->`, on the sphere)
    /// within `ST_DWithin`, and distances are measured on the sphere (`use_spheroid` false), as the server measures them.
    /// Ties are not broken by id: with `ORDER BY geog <-> p, id` PostgreSQL sorts every point within the radius instead
    /// of walking the index (the dataset's points are all distinct, and the pages are compared with the server's).
    private struct NearestQuery: PostgresPreparedStatement {
        static let sql = """
            SELECT id, ST_Distance(geog, p, false)
            FROM \(PostGISPeer.table), (SELECT ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography AS p) AS center
            WHERE ST_DWithin(geog, p, $3, false) AND status = 'open'
            ORDER BY geog <-> p
            LIMIT $4
            """
        static let bindingDataTypes: [PostgresDataType] = [.float8, .float8, .float8, .int8]

        let center: GeoPoint
        let radius: Double
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(center.lon)
            bindings.append(center.lat)
            bindings.append(radius)
            bindings.append(Int64(limit))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (id: String, distance: Double) {
            let (id, distance) = try row.decode((String, Double).self)
            return (id, distance)
        }
    }
}
