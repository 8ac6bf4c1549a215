import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Tests for ``AlertCells``.
@Suite("Alert cells")
struct AlertCellsTests {
    /// A random alert centre: mostly mid-latitudes, a share within a degree of the antimeridian (some exactly
    /// on it), a share within 100 km of a pole (some exactly on it).
    static func randomCenter(using random: inout SeededRandom) -> GeoPoint {
        switch Int.random(in: 0..<20, using: &random) {
        case 0...3:
            return GeoPoint(lat: Double.random(in: -80...80, using: &random),
                            lon: MatchingTestSupport.wrapped(180 + Double.random(in: -1...1, using: &random)))
        case 4:
            return GeoPoint(lat: Double.random(in: -80...80, using: &random), lon: Bool.random(using: &random) ? 180 : -180)
        case 5...7:
            let lat = Double.random(in: 89.1...90, using: &random)
            return GeoPoint(lat: Bool.random(using: &random) ? lat : -lat, lon: Double.random(in: -180...180, using: &random))
        case 8:
            return GeoPoint(lat: Bool.random(using: &random) ? 90 : -90, lon: Double.random(in: -180...180, using: &random))
        case 9...12:
            return GeoPoint(lat: Double.random(in: 33...38.6, using: &random),
                            lon: Double.random(in: 124.5...131, using: &random))
        default:
            return GeoPoint(lat: Double.random(in: -85...85, using: &random),
                            lon: Double.random(in: -180...180, using: &random))
        }
    }

    /// A random alert radius in 1...50,000 m: log-uniform, with a share at the maximum.
    static func randomRadius(using random: inout SeededRandom) -> Double {
        if Int.random(in: 0..<5, using: &random) == 0 { return Alert.maximumRadius }
        return exp(Double.random(in: 0...log(Alert.maximumRadius), using: &random))
    }

    /// Checks on random alerts that every point within the radius is found through its lookup keys, and at
    /// precision 5 through its own cell.
    @Test("every point within the radius is found (random alerts, antimeridian and poles)")
    func coverProperty() {
        var random = SeededRandom(seed: 5150)
        var checked = 0
        var onEdges = 0
        for _ in 0..<400 {
            let center = Self.randomCenter(using: &random)
            let radius = Self.randomRadius(using: &random)
            let cells = AlertCells.cells(for: center, radius: radius)
            let filed = Set(cells)
            let precisions = Set(cells.map(\.count))
            #expect(precisions.count == 1, "one precision per alert")
            let finest = precisions == [AlertCells.precision]
            var points: [GeoPoint] = []
            for _ in 0..<12 {
                let fraction = Bool.random(using: &random) ? Double.random(in: 0...1, using: &random).squareRoot()
                    : 1 - Double.random(in: 0...1e-6, using: &random)
                points.append(MatchingTestSupport.destination(
                    from: center, distanceMeters: radius * fraction,
                    bearingDegrees: Double.random(in: 0..<360, using: &random)
                ))
            }
            // Points on the antimeridian (both spellings) and at the poles, when they are inside.
            let extras = points.prefix(3).flatMap { [GeoPoint(lat: $0.lat, lon: 180), GeoPoint(lat: $0.lat, lon: -180)] }
                + [GeoPoint(lat: 90, lon: center.lon), GeoPoint(lat: -90, lon: 0), center]
            points += extras.filter { Haversine.distance(center, $0) <= radius }
            for point in points where Haversine.distance(center, point) <= radius {
                checked += 1
                if abs(point.lon) == 180 || abs(point.lat) == 90 { onEdges += 1 }
                let hits = AlertCells.lookupKeys(for: point).filter { filed.contains($0) }.count
                #expect(hits == 1, "\(point) within \(radius) m of \(center)")
                if finest {
                    let found = filed.contains(AlertCells.cell(of: point))
                    #expect(found, "\(point) within \(radius) m of \(center)")
                }
            }
        }
        #expect(checked > 4_000)
        #expect(onEdges > 50)
    }

    /// Checks that cells are not needlessly far: a point farther than the radius plus a cell diagonal of the
    /// alert's precision (about 1.4 km at 6, 7 km at 5, 44 km at 4) is never in a filed cell.
    @Test("far points are not filed")
    func farPoints() throws {
        var random = SeededRandom(seed: 99)
        for _ in 0..<150 {
            let center = GeoPoint(lat: Double.random(in: -60...60, using: &random),
                                  lon: Double.random(in: -180...180, using: &random))
            let radius = Self.randomRadius(using: &random)
            let filed = Set(AlertCells.cells(for: center, radius: radius))
            let precision = try #require(filed.first?.count)
            #expect(filed.allSatisfy { $0.count == precision })
            let diagonal = try #require([4: 45_000.0, 5: 7_000, 6: 1_500][precision], "precision \(precision)")
            for _ in 0..<10 {
                let point = MatchingTestSupport.destination(
                    from: center, distanceMeters: radius + Double.random(in: diagonal...(diagonal + 200_000), using: &random),
                    bearingDegrees: Double.random(in: 0..<360, using: &random)
                )
                let found = filed.contains(String(AlertCells.cell(of: point).prefix(precision)))
                #expect(!found, "\(point) is filed for \(radius) m around \(center)")
            }
        }
    }

    /// Checks the number of cells of the largest alerts at various places.
    @Test("cell counts stay bounded", arguments: [
        GeoPoint(lat: 37.5665, lon: 126.978), // Seoul
        GeoPoint(lat: 33.5, lon: 126.5), // Jeju
        GeoPoint(lat: 38.6, lon: 128.4), // Goseong, the northern edge
        GeoPoint(lat: 0, lon: 0),
        GeoPoint(lat: 0, lon: 180),
        GeoPoint(lat: -45, lon: -179.99),
        GeoPoint(lat: 60, lon: 10),
        GeoPoint(lat: 64, lon: -21),
        GeoPoint(lat: 80, lon: 15),
        GeoPoint(lat: 89.9, lon: 0),
        GeoPoint(lat: 90, lon: 0),
        GeoPoint(lat: -90, lon: 123),
    ])
    func counts(center: GeoPoint) {
        let cells = AlertCells.cells(for: center, radius: Alert.maximumRadius)
        #expect(!cells.isEmpty)
        #expect(cells.count <= AlertCells.cellBudget)
        #expect(cells == cells.sorted())
        #expect(Set(cells).count == cells.count)
        if abs(center.lat) <= 64 {
            #expect(cells.allSatisfy { $0.count == 4 })
        }
    }

    /// Checks small alerts in Korea take a handful of cells.
    @Test("alerts in Seoul take a handful of cells no larger than their circles")
    func smallAlert() {
        let seoul = MatchingTestSupport.seoul
        for (radius, precision) in [(1_000.0, 6), (2_000, 6), (3_000, 5), (10_000, 5), (50_000, 4)] {
            let cells = AlertCells.cells(for: seoul, radius: radius)
            #expect((1...AlertCells.cellBudget).contains(cells.count), "\(radius)")
            #expect(cells.allSatisfy { $0.count == precision }, "\(radius)")
            #expect(cells.contains(String(AlertCells.cell(of: seoul).prefix(precision))), "\(radius)")
        }
    }

    /// Checks degenerate inputs.
    @Test("degenerate radii and centres")
    func degenerate() {
        let seoul = MatchingTestSupport.seoul
        #expect(AlertCells.cells(for: seoul, radius: -1).isEmpty)
        #expect(AlertCells.cells(for: seoul, radius: .nan).isEmpty)
        #expect(AlertCells.cells(for: GeoPoint(lat: .nan, lon: 0), radius: 10).isEmpty)
        #expect(AlertCells.cells(for: seoul, radius: 0).contains(AlertCells.cell(of: seoul)))
        let world = AlertCells.cells(for: seoul, radius: .infinity)
        #expect(world.count == 32 && world == world.sorted())
        #expect(AlertCells.cells(for: seoul, radius: 20_100_000).count == 32)
    }

    /// Checks the cell and lookup keys of a point.
    @Test("cell of a point and its lookup keys")
    func cellOfPoint() {
        let cell = AlertCells.cell(of: MatchingTestSupport.seoul)
        #expect(cell.hasPrefix("wydm9") && cell.count == 6)
        #expect(AlertCells.lookupKeys(for: MatchingTestSupport.seoul) == ["w", "wy", "wyd", "wydm", "wydm9", cell])
        #expect(AlertCells.cell(of: GeoPoint(lat: 0, lon: 180)) != AlertCells.cell(of: GeoPoint(lat: 0, lon: -180)))
    }

    /// Checks the whole server path — file alerts under their cells, look up a new class by its keys, filter
    /// with `matches` — against checking every alert.
    @Test("indexed lookup equals brute force")
    func indexedLookup() {
        var random = SeededRandom(seed: 31)
        var index: [String: [Alert]] = [:]
        var alerts: [Alert] = []
        for number in 0..<150 {
            let center = number % 3 == 0 ? Self.randomCenter(using: &random)
                : GeoPoint(lat: Double.random(in: 37.3...37.8, using: &random),
                           lon: Double.random(in: 126.7...127.3, using: &random))
            let alert = Alert(id: "a\(number)", userId: "u\(number % 7)", center: center,
                              radius: Self.randomRadius(using: &random),
                              subjects: Bool.random(using: &random) ? [.math] : nil, createdAt: MatchingTestSupport.date)
            alerts.append(alert)
            for cell in AlertCells.cells(for: alert) {
                index[cell, default: []].append(alert)
            }
        }
        var matched = 0
        for number in 0..<600 {
            let base = alerts[number % alerts.count].center
            let location = MatchingTestSupport.destination(
                from: base, distanceMeters: Double.random(in: 0...60_000, using: &random),
                bearingDegrees: Double.random(in: 0..<360, using: &random)
            )
            let listing = MatchingTestSupport.listing(
                id: "c\(number)", location: location,
                subjects: Bool.random(using: &random) ? [.math] : [.english], writerId: "u\(number % 9)"
            )
            let expected = Set(alerts.filter { $0.matches(listing) }.map(\.id))
            let candidates = AlertCells.lookupKeys(for: location).flatMap { index[$0] ?? [] }
            let found = Set(candidates.filter { $0.matches(listing) }.map(\.id))
            #expect(found == expected)
            #expect(candidates.count == Set(candidates.map(\.id)).count, "an alert is found once")
            matched += expected.count
        }
        #expect(matched > 300)
    }
}
