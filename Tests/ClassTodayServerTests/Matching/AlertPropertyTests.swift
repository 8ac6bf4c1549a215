import ClassTodayCore
import Foundation
import ClassTodayTestSupport
import Logging
import Testing
@testable import ClassTodayServer

@Suite("Alerts against brute force")
struct AlertPropertyTests {
    /// A random alert of one of `users` near one of `centers`: radii from 100 m to 50 km, with or without a
    /// keyword (a single syllable spanning a space among them), type, subjects, days and price filters.
    static func randomAlert(users: [String], near centers: [GeoPoint], random: inout SeededRandom) -> Alert {
        Alert(
            id: Identifier.make(at: Date(), using: &random), userId: users.randomElement(using: &random)!,
            center: random.point(near: centers.randomElement(using: &random)!, spread: 0.3),
            radius: [100.0, 2_000, 10_000, 50_000].randomElement(using: &random)!,
            query: [nil, "수학", "요가", "python", "가 수"].randomElement(using: &random)!,
            type: [nil, .buy, .sell].randomElement(using: &random)!,
            subjects: [nil, [.math], [.hobby, .language]].randomElement(using: &random)!,
            days: [nil, [.mon]].randomElement(using: &random)!,
            maxPrice: [nil, 30_000].randomElement(using: &random)!, createdAt: Date())
    }

    @Test("for random alerts and classes, the cell index notifies exactly the alerts a full check selects")
    func againstBruteForce() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        var random = SeededRandom(seed: 42)
        var users: [String] = []
        for index in 0..<6 {
            users.append(try await environment.users.create(NewUser(email: "u\(index)@example.com", passwordHash: "x", nickname: "u"), at: Date()).id)
        }
        let centers = [GeoPoint(lat: 37.5665, lon: 126.9780), GeoPoint(lat: -16.5, lon: 179.98), GeoPoint(lat: 89.9, lon: 0)]
        var alerts: [Alert] = []
        for _ in 0..<400 {
            let alert = Self.randomAlert(users: users, near: centers, random: &random)
            try await environment.alerts.create(alert)
            alerts.append(alert)
        }
        var notified = 0
        for index in 0..<150 {
            let now = Date()
            let listing = ClassListing(
                id: Identifier.make(at: now, using: &random), type: Bool.random(using: &random) ? .buy : .sell,
                name: ["수학 과외", "요가 수업", "Python 기초", "피아노"].randomElement(using: &random)!, description: "설명 \(index)",
                days: [], time: nil, place: nil, location: random.point(near: centers.randomElement(using: &random)!, spread: 0.3),
                keywordLocation: nil, price: [nil, 20_000, 50_000].randomElement(using: &random)!, priceUnit: .perHour,
                subjects: [[.math], [.hobby], []].randomElement(using: &random)!, targets: [], capacity: 1, status: .open, imageIds: [],
                writerId: users.randomElement(using: &random)!, favoriteCount: 0, createdAt: now, updatedAt: now)
            _ = try await environment.classes.create(listing)
            let batch = try await environment.alerts.fanOut(limit: 10, at: now)
            #expect(batch.classCount == 1 && batch.notifications.allSatisfy { $0.classId == listing.id })
            let fired = Set(batch.notifications.map(\.alertId))
            let expected = Set(alerts.filter { $0.userId != listing.writerId && $0.matches(listing) }.map(\.id))
            #expect(fired == expected, "class \(index): missing \(expected.subtracting(fired).count), extra \(fired.subtracting(expected).count)")
            #expect(!alerts.filter { fired.contains($0.id) }.contains { $0.userId == listing.writerId }, "never the writer's own alert")
            notified += fired.count
        }
        #expect(notified > 50, "the random cases should fire alerts")
        let drained = try await environment.alerts.fanOut(limit: 10, at: Date())
        #expect(drained.classCount == 0 && drained.notifications.isEmpty, "a class is fanned out once")
    }
}
