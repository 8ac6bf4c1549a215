import Foundation

/// The geohash cells an alert's circle is filed under, for an index table of `(cell, alertId)` rows.
///
/// **Filing.** ``cells(for:radius:)`` lists every cell of one precision that intersects the alert's circle.
/// The precision is ``precision`` (5) unless the circle's latitude/longitude bounding box would span more than
/// ``cellBudget`` cells at that precision; then it is the finest coarser precision that fits. That only
/// happens far from Korea — a 50 km circle keeps precision 5 up to about 64° of latitude — but it keeps a
/// circle around a pole, whose box holds every longitude, from needing tens of thousands of rows.
///
/// **Lookup.** For a new or reopened class at `point`, select the alerts filed under any of
/// ``lookupKeys(for:)`` — the class's cell at ``precision`` and its coarser prefixes, five short strings
/// (`WHERE cell IN (?, ?, ?, ?, ?)`) — then keep those for which ``Alert/matches(_:)`` holds. Every alert
/// whose circle holds `point` is among the selected ones; at mid-latitudes it is filed under exactly
/// ``cell(of:)``.
///
/// **Why precision 5.** Its cells are 0.0439° × 0.0439°: about 4.9 km × 4.9 km at the equator and
/// 4.9 km × 3.9 km at Seoul's latitude. The largest alert (50 km) then takes about 470 rows in Korea and a typical
/// 3 km alert 4 to 9, while a lookup returns alerts whose circles pass within a few kilometres of the class.
/// Precision 4 (39 km × 20 km) would make lookups in dense cities return many alerts that do not match;
/// precision 6 (1.2 km × 0.6 km) would file a 50 km alert under about 8,000 rows.
public enum AlertCells {
    /// The precision of the cells alerts are filed under, and of ``cell(of:)`` (about 4.9 km cells).
    public static let precision = 5
    /// The largest number of cells of a circle's bounding box at the chosen precision; ``cells(for:radius:)``
    /// returns at most this many cells.
    public static let cellBudget = 1024

    /// The sorted, distinct geohash strings of every cell, at the precision chosen for this circle
    /// (``precision`` whenever the budget allows), that holds a point within `radius` meters (haversine)
    /// of `center`.
    ///
    /// Correct across the antimeridian and around the poles: a point at longitude 180 or -180 is found in
    /// the cell its geohash names. A radius of half the Earth's circumference or more returns the 32
    /// one-character cells. A negative or NaN radius or a non-finite center returns no cells; the center
    /// is otherwise normalized (latitude clamped, longitude wrapped).
    public static func cells(for center: GeoPoint, radius: Double) -> [String] {
        guard center.lat.isFinite, center.lon.isFinite, !radius.isNaN, radius >= 0 else { return [] }
        let center = center.normalized
        let angle = radius / Haversine.earthRadiusMeters
        guard angle < .pi else {
            return Geohash.alphabet.map { String($0) }
        }
        let region = GeohashCover.searchBox(center: center, angle: angle)
        let grid = finestGrid(for: region)
        var cells: [UInt64] = []
        GeohashCover.forEachCell(in: region, grid: grid) { row, column in
            if GeohashCover.minimumDistance(from: center, to: grid.bounds(row: row, column: column)) <= radius {
                cells.append(grid.cellIndex(row: row, column: column))
            }
        }
        return cells.sorted().map { Geohash(precision: grid.precision, bits: $0).string }
    }

    /// The cells `alert` is filed under: ``cells(for:radius:)`` of its circle.
    public static func cells(for alert: Alert) -> [String] {
        cells(for: alert.center, radius: alert.radius)
    }

    /// The geohash of `point` at ``precision``: the cell a class at `point` lies in.
    public static func cell(of point: GeoPoint) -> String {
        Geohash(point, precision: precision).string
    }

    /// The keys to look alerts up by for a class at `point`: ``cell(of:)`` and its prefixes, shortest first
    /// (``precision`` strings). An alert whose circle holds `point` is filed under exactly one of them.
    public static func lookupKeys(for point: GeoPoint) -> [String] {
        let cell = cell(of: point)
        return (1...precision).map { String(cell.prefix($0)) }
    }

    /// The finest grid, at most ``precision``, on which `region` (a normalized box) spans no more than
    /// ``cellBudget`` cells; precision 1 at worst.
    private static func finestGrid(for region: GeoBoundingBox) -> Geohash.Grid {
        for candidate in stride(from: precision, to: 1, by: -1) {
            let grid = Geohash.Grid(precision: candidate)
            let rows = grid.row(forLatitude: region.maxLat) - grid.row(forLatitude: region.minLat) + 1
            let columns = GeohashCover.columnRuns(of: region, grid: grid).reduce(0) { $0 + UInt64($1.count) }
            if rows * columns <= UInt64(cellBudget) {
                return grid
            }
        }
        return Geohash.Grid(precision: 1)
    }
}
