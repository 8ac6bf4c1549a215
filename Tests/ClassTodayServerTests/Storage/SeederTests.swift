import ClassTodayCore
import ClassTodaySeed
import Foundation
import Logging
import Testing
@testable import ClassTodayServer

@Suite("Seeding")
struct SeederTests {
    /// The seeded listings of a fresh database seeded in runs of `steps` classes (the last step is the total), as
    /// what a user sees of them, sorted (ids and creation times depend on when each run started and are left out).
    func seeded(inSteps steps: [Int]) async throws -> [String] {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let environment = try await ServerEnvironment.open(configuration, logger: logger)
        for classes in steps {
            try await environment.seed(users: 4, classes: classes, seed: 7, logger: logger) { _, _ in }
        }
        let counts = try await environment.seedCounts()
        #expect(counts.users == 4)
        #expect(counts.classes == steps.last)
        var search = ClassSearch()
        search.sort = .recent
        let page = try await environment.classes.search(search, viewerId: nil, page: PageRequest(limit: 100))
        return page.items.map { view in
            let listing = view.listing
            return "\(listing.name)|\(listing.description)|\(listing.location.map { "\($0.lat),\($0.lon)" } ?? "-")|\(listing.price ?? -1)|\(view.writer.nickname)"
        }.sorted()
    }

    @Test("a freshly seeded database's keyword index is current: a server started on it indexes no listing again")
    func seededKeywordIndexIsCurrent() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let environment = try await ServerEnvironment.open(configuration, logger: logger)
        defer { environment.close() }
        try await environment.seed(users: 2, classes: 6, seed: 7, logger: logger) { _, _ in }
        // A fresh PostgreSQL database said its index was of version 1, and a million seeded listings were indexed again.
        #expect(try await environment.classes.upgradeKeywordIndex(batchSize: 100) == 0)
    }

    @Test("seeding resumed in several runs stores the same listings as one run, and a repeated run adds nothing")
    func resumedSeedingIsDeterministic() async throws {
        let once = try await seeded(inSteps: [30])
        let resumed = try await seeded(inSteps: [7, 7, 19, 30, 30])
        #expect(once.count == 30)
        #expect(resumed == once)
    }
}
