import ClassTodayCore
import ClassTodayServer
import ClassTodaySeed
import Foundation
import GRDB
import Logging

/// `classtoday-bench alerts`: creates classes before and after many alerts are stored, timing each creation (what
/// the writer waits for) and, apart, its alert fan-out (what ``AlertFanOut`` runs in the background), and checks
/// the notifications produced against a brute force over every alert.
public struct AlertBenchmark: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// Alerts stored before classes are created.
        public var alerts = 100_000
        /// Classes created (half timed without matching, half with).
        public var classes = 10_000
        /// The random seed.
        public var seed: UInt64 = 2026

        /// The defaults: 100,000 alerts, 10,000 classes.
        public init() {}
    }

    let options: Options
    let store: SQLiteStore
    let logger: Logger

    /// Creates a fresh database `bench-alerts.sqlite` in `configuration`'s data folder.
    public static func prepare(_ options: Options, configuration: AppConfiguration, logger: Logger) async throws -> AlertBenchmark {
        let path = (configuration.dataDirectory as NSString).appendingPathComponent("bench-alerts.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let store = try SQLiteStore.open(path: path, durableCommits: configuration.durableCommits)
        try await store.migrate(try Migration.load(from: (configuration.migrationsDirectory as NSString).appendingPathComponent("sqlite")), logger: logger)
        return AlertBenchmark(options: options, store: store, logger: logger)
    }

    /// Runs the benchmark and returns the report's lines: half the classes are created before any alert exists,
    /// the other half once every alert is stored, through the same repository call.
    public func run(progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [String] {
        var data = SyntheticData(seed: options.seed)
        let users = SQLUserRepository(database: store.database)
        var userIds: [String] = []
        for index in 0..<1000 {
            let user = data.user(index: index)
            userIds.append(try await users.create(NewUser(email: user.email, passwordHash: "x", nickname: user.nickname), at: Date()).id)
        }
        let total = options.alerts + options.classes
        let classes = SQLClassRepository(database: store.database)
        let alertRepository = SQLAlertRepository(database: store.database)
        /// Creates classes one at a time, each followed by its fan-out (what ``AlertFanOut`` runs in the background),
        /// timing both apart: the creation is what the class's writer waits for.
        func createClasses(_ count: Int, offset: Int) async throws -> (create: LatencySample, fanOut: LatencySample, [ClassListing], Int) {
            var sample = LatencySample()
            var fanOutSample = LatencySample()
            var listings: [ClassListing] = []
            var notifications = 0
            for index in 0..<count {
                let writer = data.writerIndex(among: userIds.count)
                var listing = ClassListing(
                    id: Identifier.make(at: Date(), using: &data), type: .sell, name: "", description: "", days: [], time: nil,
                    place: nil, location: nil, keywordLocation: nil, price: nil, priceUnit: .perHour, subjects: [], targets: [],
                    capacity: 1, status: .open, imageIds: [], writerId: userIds[writer], favoriteCount: 0, createdAt: Date(), updatedAt: Date())
                data.classDraft().apply(to: &listing)
                let begin = ContinuousClock.now
                _ = try await classes.create(listing)
                sample.record(ContinuousClock.now - begin)
                let fanOutBegin = ContinuousClock.now
                notifications += try await alertRepository.fanOut(limit: 1, at: Date()).notifications.count
                fanOutSample.record(ContinuousClock.now - fanOutBegin)
                listings.append(listing)
                if index % 500 == 0 { progress(offset + index, total) }
            }
            return (sample, fanOutSample, listings, notifications)
        }

        let (withoutAlerts, fanOutWithout, _, _) = try await createClasses(options.classes / 2, offset: 0)

        var alerts: [Alert] = []
        alerts.reserveCapacity(options.alerts)
        let start = ContinuousClock.now
        for index in 0..<options.alerts {
            let alert = data.alert(id: Identifier.make(at: Date(), using: &data), userId: userIds[Int(data.next() % UInt64(userIds.count))],
                                   at: Date())
            try await alertRepository.create(alert)
            alerts.append(alert)
            if index % 5000 == 0 { progress(options.classes / 2 + index, total) }
        }
        let storing = ContinuousClock.now - start
        let cellRows = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM alert_index") ?? 0 }

        let (withAlerts, fanOutWith, listings, produced) = try await createClasses(options.classes - options.classes / 2, offset: options.classes / 2 + options.alerts)
        progress(total, total)
        let expected = listings.reduce(0) { count, listing in
            count + alerts.lazy.filter { $0.userId != listing.writerId && $0.matches(listing) }.count
        }
        func ms(_ value: Double) -> String { String(format: "%.3f", value) }
        return [
            "alert benchmark: \(options.alerts) alerts (\(cellRows) cell rows, stored in \(storing)), \(options.classes) classes created",
            "create with no alerts stored:          p50 \(ms(withoutAlerts.median)) ms, p99 \(ms(withoutAlerts.p99)) ms (\(options.classes / 2) classes)",
            "create with \(options.alerts) alerts stored:   p50 \(ms(withAlerts.median)) ms, p99 \(ms(withAlerts.p99)) ms (\(listings.count) classes)",
            "added to creation by the alerts at the median: \(ms(withAlerts.median - withoutAlerts.median)) ms",
            "background fan-out per class (AlertFanOut, after the creation commits): p50 \(ms(fanOutWithout.median)) ms with no alerts, "
                + "p50 \(ms(fanOutWith.median)) ms, p99 \(ms(fanOutWith.p99)) ms with \(options.alerts) alerts",
            "notifications produced \(produced) (\(String(format: "%.1f", Double(produced) / Double(max(1, listings.count)))) per class), "
                + "brute-force count \(expected): \(produced == expected ? "equal" : "DIFFERENT")",
            "alerts as SyntheticData.alert makes them: a subject and/or a topic keyword, radius 1-10 km, most with a type filter",
        ]
    }
}
