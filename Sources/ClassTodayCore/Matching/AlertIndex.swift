import Foundation

/// The geohash cells an alert's circle is filed under, for an index table of `(cell, alertId)` rows.
///
/// **Filing.** ``cells(for:radius:)`` lists every cell of one precision that intersects the alert's circle: the
/// finest precision, at most ``precision`` (6), at which the circle's latitude/longitude bounding box spans no
/// more than ``cellBudget`` (48) cells. In Korea 1 and 2 km alerts are filed under 1.2 km × 0.6 km cells
/// (precision 6), 3 to 10 km ones under 4.9 km × 3.9 km cells (precision 5) and 50 km ones under
/// 39 km × 20 km cells (precision 4): an alert takes at most 48 rows, and the cells it is filed under are never
/// much larger than its circle, so a lookup returns few alerts whose circles miss the class.
///
/// **Lookup.** For a new or reopened class at `point`, select the alerts filed under any of
/// ``lookupKeys(for:)`` — the class's cell at ``precision`` and its coarser prefixes, six short strings
/// (`WHERE cell IN (?, ?, ?, ?, ?, ?)`) — then keep those for which ``Alert/matches(_:)`` holds. Every alert
/// whose circle holds `point` is among the selected ones: it is filed under the prefix of ``cell(of:)`` of its
/// own precision. Alerts filed at another precision by an earlier version stay correct for the same reason.
public enum AlertCells {
    /// The finest precision alerts are filed under, and the precision of ``cell(of:)`` (1.2 km × 0.6 km cells).
    public static let precision = 6
    /// The largest number of cells of a circle's bounding box at the chosen precision; ``cells(for:radius:)``
    /// returns at most this many cells.
    public static let cellBudget = 48

    /// The sorted, distinct geohash strings of every cell, at the precision chosen for this circle (the
    /// finest, at most ``precision``, that fits ``cellBudget``), that holds a point within `radius` meters
    /// (haversine) of `center`.
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
        let grid = GeohashCover.finestGrid(for: region, budget: cellBudget, maximumPrecision: precision)
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
}
