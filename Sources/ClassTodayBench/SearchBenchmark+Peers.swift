import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging
import NIOCore

extension SearchBenchmark {
    /// What the circle rows are compared with: PostGIS on the same points, and the server over HTTP.
    struct Peers: Sendable {
        /// The dataset's points in PostGIS.
        let postgis: PostGISPeer
        /// The server answering HTTP over the dataset.
        let http: HTTPPeer
        /// The server answering HTTP over the dataset's PostgreSQL copy, when the bench has one.
        let postgresHTTP: HTTPPeer?
    }

    /// One circle row's queries asked of the peers, each right after the server answered it in-process, and the profile
    /// of where a page's time goes.
    struct PeerSample {
        let peers: Peers
        let limit: Int
        let logger: Logger
        /// PostGIS's nearest-first pages (ids and distances).
        private(set) var postgis = LatencySample()
        /// Queries whose PostGIS page holds other ids, in another order, or says otherwise whether more follow.
        private(set) var postgisDisagreements = 0
        /// The largest difference between PostGIS's distance and the server's for the same listing, in metres.
        private(set) var largestDistanceGap = 0.0
        /// The server's page over HTTP: request sent to the body's last byte.
        private(set) var http = LatencySample()
        /// `GET /health` on the same connection pool, right before or right after the page, in turn.
        private(set) var health = LatencySample()
        /// Queries whose HTTP page holds other ids than the in-process page.
        private(set) var httpDisagreements = 0
        /// The server's page read again in-process right before the HTTP page: warm, where the HTTP server (its own
        /// connections) reads the place for the first time.
        private(set) var warm = LatencySample()
        /// The stages of a page, one value per query (the warm read's).
        private(set) var stages: [Stage: LatencySample] = [:]
        /// Statements run, by kind, over all queries.
        private(set) var statements: [StatementProfile.Kind: Int] = [:]
        /// Queries recorded.
        private(set) var queries = 0

        /// Where a page's time goes.
        enum Stage: CaseIterable {
            /// The walk's cell statements: each counts a cell's candidates and, when they are few enough, reads the ids and
            /// distances of its nearest listings.
            case cells
            /// Other key statements (a crowded cell of the finest precision, read whole).
            case keys
            /// The one statement reading the page's listings, writers and images.
            case views
            /// The search's own code between statements: the walk, rows copied out and decoded into listings.
            case swift
            /// Lending a reader connection to the search and giving it back: the hops to GRDB's thread and back,
            /// `BEGIN` and `COMMIT`.
            case lease
            /// The page as JSON: class objects built and encoded as the server answers them.
            case json
            /// The HTTP page less the warm page read with its lease and its JSON: parsing, routing and middleware, the hops
            /// between the event loop and the handler's task, writing and reading the socket, and what the HTTP server's
            /// first read of the place costs beyond a warm read.
            case httpLayer
        }

        /// Asks the peers the nearest-first query `query`, which the server answered in-process with `page`, and compares
        /// their pages with it. `reread` reads the page in-process again, timed, for the profile: the first read warmed the
        /// reader's page cache. The HTTP server reads through its own connections, so its page is its first read there.
        mutating func record(_ query: ClassSearch, page: Page<ClassView>, reread: () async throws -> TimedPage) async throws {
            guard let circle = query.circle else { return }
            queries += 1
            let (nearest, postgisElapsed) = try await peers.postgis.nearest(center: circle.center, radius: circle.radius, limit: limit + 1)
            postgis.record(postgisElapsed)
            compare(nearest, with: page, circle: circle)

            let again = try await reread()
            warm.record(again.elapsed)
            let path = HTTPPeer.searchPath(circle, limit: limit)
            let jsonStart = ContinuousClock.now
            _ = try again.page.responseBody(uri: path)
            let json = ContinuousClock.now - jsonStart
            // In turn first, as the server's code the first request runs is colder than the second's: always second,
            // `/health` was the favoured one.
            let healthFirst = queries.isMultiple(of: 2)
            if healthFirst { health.record(try await peers.http.get("/health").1) }
            let (body, httpElapsed) = try await peers.http.get(path)
            http.record(httpElapsed)
            if !healthFirst { health.record(try await peers.http.get("/health").1) }
            if try Self.ids(in: body) != page.items.map(\.listing.id) {
                httpDisagreements += 1
                logger.error("the HTTP page differs from the in-process page", metadata: ["circle": "\(circle)"])
            }

            let run = again.statements
            for kind in StatementProfile.Kind.allCases {
                statements[kind, default: 0] += run.counts[kind] ?? 0
            }
            record(.cells, run.durations[.cell] ?? .zero)
            record(.keys, run.durations[.keys] ?? .zero)
            record(.views, run.durations[.views] ?? .zero)
            record(.swift, again.elapsed - run.durations.values.reduce(.zero, +))
            record(.lease, again.leased - again.elapsed)
            record(.json, json)
            record(.httpLayer, httpElapsed - again.leased - json)
        }

        private mutating func record(_ stage: Stage, _ duration: Duration) {
            stages[stage, default: LatencySample()].record(duration)
        }

        /// Counts (and logs) a PostGIS page that differs from the server's, and keeps the largest distance gap.
        private mutating func compare(_ nearest: [(id: String, distance: Double)], with page: Page<ClassView>, circle: ClassSearch.Circle) {
            let shown = nearest.prefix(limit)
            for (peer, item) in zip(shown, page.items) where peer.id == item.listing.id {
                largestDistanceGap = max(largestDistanceGap, abs(peer.distance - (item.distance ?? .nan)))
            }
            guard shown.map(\.id) != page.items.map(\.listing.id) || (nearest.count > limit) != (page.nextCursor != nil) else { return }
            postgisDisagreements += 1
            let firstDifference = zip(shown, page.items).prefix { $0.id == $1.listing.id }.count
            logger.error("PostGIS and the server's pages differ", metadata: [
                "circle": "\(circle)", "position": "\(firstDifference)",
                "postgis": "\(shown.dropFirst(firstDifference).prefix(2).map { "\($0.id) \($0.distance)" })",
                "server": "\(page.items.dropFirst(firstDifference).prefix(2).map { "\($0.listing.id) \($0.distance ?? .nan)" })",
                "postgisCount": "\(nearest.count)", "serverCount": "\(page.items.count)", "serverHasMore": "\(page.nextCursor != nil)",
            ])
        }

        /// The class ids of an HTTP page's body.
        private static func ids(in body: ByteBuffer) throws -> [String] {
            try HTTPPeer.items(in: body).compactMap { $0["id"] as? String }
        }

        /// The report's peer tables: PostGIS beside the server's in-process page, the HTTP page beside `/health`, and the
        /// profile of a page.
        static func report(_ rows: [(kind: String, server: LatencySample, peers: PeerSample)], postgis: PostGISPeer) -> [String] {
            let format = { (value: Double) in LatencySample.format(value) }
            let ratio = { (value: Double) in LatencySample.ratio(value) }
            var lines = [
                "",
                "peers: the same nearest-first first pages, each asked of PostGIS and of the server over HTTP right after the server answered it in-process",
                "PostGIS (\(postgis.versions)): GiST on geography(Point), ORDER BY geog <-> p within ST_DWithin(geog, p, R, false), open only, "
                    + "ids and ST_Distance(geog, p, false) over one local connection, a prepared statement, JIT off",
                "sphere radius: server \(Haversine.earthRadiusMeters) m, PostGIS \(String(format: "%.4f", postgis.sphereRadius)) m "
                    + "(its WGS 84 spheroid's mean radius (2a + b) / 3)",
                "",
                "kind                     server p50  server p99  PostGIS p50  PostGIS p99  server/PostGIS p50  p99  pages differing  largest distance gap",
            ]
            for row in rows {
                let (server, peer) = (row.server, row.peers.postgis)
                lines.append(.reportLine(row.kind, [
                    (format(server.median), 11), (format(server.p99), 12), (format(peer.median), 13), (format(peer.p99), 13),
                    (ratio(server.median / peer.median), 20), (ratio(server.p99 / peer.p99), 7), ("\(row.peers.postgisDisagreements)", 17),
                    (String(format: "%.2e m", row.peers.largestDistanceGap), 22),
                ]))
            }
            lines += [
                "(goal: server/PostGIS p50 within 1.5x at every radius, server p99 at most PostGIS's)",
                "",
                "HTTP: GET /v1/classes?lat=&lon=&radius=&limit= and GET /health over HTTP/1.1 keep-alive on loopback, in turn first, the server built as `serve` builds it",
                "(the client is async-http-client in the bench's own process, on the server's event loops: both columns include its costs;",
                "the server has its own connections, warmed by 400 searches at other places: each HTTP page is its first read of that place)",
                "",
                "kind                     HTTP p50  HTTP p99  /health p50  /health p99  HTTP//health p50  HTTP/PostGIS p50   p99  pages differing",
            ]
            for row in rows {
                let (http, health, postgis) = (row.peers.http, row.peers.health, row.peers.postgis)
                lines.append(.reportLine(row.kind, [
                    (format(http.median), 9), (format(http.p99), 10), (format(health.median), 13), (format(health.p99), 13),
                    (ratio(http.median / health.median), 18), (ratio(http.median / postgis.median), 18), (ratio(http.p99 / postgis.p99), 6),
                    ("\(row.peers.httpDisagreements)", 17),
                ]))
            }
            lines += [
                "(goals: HTTP p50 within 2.5x /health's; within 2x PostGIS's p50 above, and a p99 at most PostGIS's)",
                "",
                "profile of a page: statements per page (cell statements + other key statements + the listings read), and the median time per query of each stage",
                "of the page read again in-process right before its HTTP request (warm: the first read above filled the reader's page cache)",
                "(statements timed by a recording executor inside the read; Swift: the search's own code between them; lease: lending a reader connection "
                    + "and giving it back; HTTP layer: the HTTP page less the warm leased page and its JSON, so it holds what the server's own first read "
                    + "of the place costs beyond a warm one; medians need not add up)",
                "",
                "kind                     statements/page            cells   keys  views  Swift  lease   JSON  HTTP layer   warm page p50  p99  HTTP page",
            ]
            for row in rows {
                let peers = row.peers
                let perPage = { (kind: StatementProfile.Kind) in String(format: "%.1f", Double(peers.statements[kind] ?? 0) / Double(max(peers.queries, 1))) }
                let stage = { (stage: Stage) in format(peers.stages[stage]?.median ?? .nan) }
                lines.append(.reportLine(row.kind, [
                    ("\(perPage(.cell)) + \(perPage(.keys)) + \(perPage(.views))", 17), (stage(.cells), 15), (stage(.keys), 7),
                    (stage(.views), 7), (stage(.swift), 7), (stage(.lease), 7), (stage(.json), 7), (stage(.httpLayer), 12),
                    (format(peers.warm.median), 15), (format(peers.warm.p99), 6), (format(peers.http.median), 11),
                ]))
            }
            return lines
        }
    }
}

/// What one page's statements took, by kind: the statements a nearest-first search runs on SQLite, told apart by their
/// text.
struct StatementProfile: Sendable {
    /// A kind of statement.
    enum Kind: CaseIterable, Sendable {
        /// A walk's cell statement (`WITH cell_candidates ...`): the cell's candidates counted, and its keys read when
        /// they are few enough.
        case cell
        /// A key statement: ids and distances.
        case keys
        /// The page's listings with their writers and images (``ClassViewQuery``).
        case views
    }

    /// Statements run, by kind.
    private(set) var counts: [Kind: Int] = [:]
    /// Their time, by kind.
    private(set) var durations: [Kind: Duration] = [:]

    /// Adds `statement`, which took `elapsed`.
    mutating func add(_ statement: SQLStatement, _ elapsed: Duration) {
        let kind: Kind = if statement.sql.contains("writer_nickname") {
            .views
        } else if statement.sql.hasPrefix("WITH cell_candidates") {
            .cell
        } else {
            .keys
        }
        counts[kind, default: 0] += 1
        durations[kind, default: .zero] += elapsed
    }
}
