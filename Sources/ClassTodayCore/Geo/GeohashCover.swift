import Foundation

/// Covers of circles and boxes by geohash string ranges, for prefix-range queries on an indexed
/// geohash column holding ``Geohash/storagePrecision``-character strings.
///
/// A cover is built from the cells of one precision — the finest precision at which the region's
/// latitude/longitude bounding box spans at most ``cellBudget`` cells, so the precision follows both the
/// radius and (through the width of a degree of longitude) the latitude. Cells adjacent in base32 order
/// are merged, and if more than ``maximumRangeCount`` ranges remain the smallest gaps between them are
/// filled, which adds the fewest cells for that range count. Covers are supersets: callers still filter
/// candidates by exact distance.
public enum GeohashCover {
    /// The largest number of ranges a ``circle(center:radiusMeters:)`` or ``box(_:)`` cover returns.
    public static let maximumRangeCount = 32

    /// The largest number of cells of the region's bounding box examined when choosing the precision.
    static let cellBudget = 1024

    /// Sorted, non-overlapping ranges whose union holds the storage geohash of every point within
    /// `radiusMeters` (haversine) of `center`.
    ///
    /// Works across the antimeridian, around the poles and for any radius (a radius of half the Earth's
    /// circumference or more covers the whole key space). Returns no ranges for a negative or NaN radius or
    /// a non-finite center; the center is otherwise normalized (latitude clamped, longitude wrapped).
    public static func circle(center: GeoPoint, radiusMeters: Double) -> [GeohashRange] {
        circleCover(center: center, radiusMeters: radiusMeters)?.ranges ?? []
    }

    /// Sorted, non-overlapping ranges whose union holds the storage geohash of every point that
    /// `box.contains(_:)`.
    ///
    /// `minLon > maxLon` means the box crosses the antimeridian; longitudes outside -180...180 are wrapped
    /// and a longitude extent of 360° or more means all longitudes. Latitudes are clamped to -90...90.
    /// Returns no ranges when a bound is not finite or `minLat > maxLat`.
    public static func box(_ box: GeoBoundingBox) -> [GeohashRange] {
        boxCover(box)?.ranges ?? []
    }

    /// A lower bound on the haversine distance in meters from `point` to any point of `box`.
    ///
    /// The value is the exact spherical distance to the nearest point of the box, made smaller by at most
    /// about a millimetre to absorb rounding; it is 0 when the box contains the point. Correct for boxes
    /// crossing the antimeridian and boxes touching a pole. Returns 0 for non-finite input and infinity for
    /// an empty box (`minLat > maxLat`).
    public static func minimumDistance(from point: GeoPoint, to box: GeoBoundingBox) -> Double {
        guard point.lat.isFinite, point.lon.isFinite, box.minLat.isFinite, box.maxLat.isFinite,
              box.minLon.isFinite, box.maxLon.isFinite
        else { return 0 }
        let point = point.normalized
        let minLat = GeoPoint.clampedLatitude(box.minLat)
        let maxLat = GeoPoint.clampedLatitude(box.maxLat)
        guard minLat <= maxLat else { return .infinity }

        let extent = LongitudeExtent(box)
        let offset = extent.offset(of: point.lon)
        let exact: Double
        if extent.isFull || offset <= extent.span {
            // The box holds the point's meridian: the nearest point is on it.
            let nearestLat = min(maxLat, max(minLat, point.lat))
            exact = Haversine.radians(abs(point.lat - nearestLat)) * Haversine.earthRadiusMeters
        } else {
            // Otherwise the nearest point is on the edge meridian with the smaller longitude difference.
            let eastGap = offset - extent.span
            let westGap = 360 - offset
            let gap = min(eastGap, westGap)
            exact = minimumDistance(from: point, toMeridianAt: point.lon + gap, gap: gap, minLat: minLat, maxLat: maxLat)
        }
        return max(0, exact - (1e-3 + exact * 1e-12))
    }

    /// An upper bound on the great-circle distance in meters from `point` to any point of `box`: the farthest of its
    /// corners, widened by about a millimetre, when the box's longitudes lie within 90° of the point's; infinity
    /// otherwise, and for non-finite input. There, along a parallel the distance grows with the longitude difference,
    /// and along a meridian it grows away from its nearest point (its farthest lies beyond a pole), so the farthest
    /// point of each edge is a corner; inside the box the distance has no maximum, which only the point's antipode is.
    public static func maximumDistance(from point: GeoPoint, to box: GeoBoundingBox) -> Double {
        guard point.lat.isFinite, point.lon.isFinite, box.minLat.isFinite, box.maxLat.isFinite, box.minLon.isFinite, box.maxLon.isFinite
        else { return .infinity }
        let west = GeoPoint.wrappedLongitude(box.minLon - point.lon), east = GeoPoint.wrappedLongitude(box.maxLon - point.lon)
        // Both edges within 90°, and the longitudes between them not the long way round through the opposite meridian.
        guard abs(west) < 90, abs(east) < 90, !box.contains(GeoPoint(lat: box.minLat, lon: point.lon + 180)) else { return .infinity }
        let corners = [(box.minLat, box.minLon), (box.minLat, box.maxLon), (box.maxLat, box.minLon), (box.maxLat, box.maxLon)]
        let farthest = corners.map { Haversine.distance(point, GeoPoint(lat: $0.0, lon: $0.1)) }.max() ?? 0
        return farthest + 1e-3 + farthest * 1e-12
    }

    // MARK: - Internals

    /// A cover: its cell precision and its spans.
    struct Cover: Sendable, Hashable {
        /// Precision of the cells the cover was built from.
        let precision: Int
        /// Sorted, disjoint, non-adjacent spans.
        let spans: [Span]

        /// The spans as string ranges.
        var ranges: [GeohashRange] {
            spans.map { $0.range(precision: precision) }
        }

        /// The whole key space.
        static let world = Cover(precision: 1, spans: [Span(lower: 0, upper: Span.end)])
    }

    /// The cover behind ``circle(center:radiusMeters:)``, or nil when it is empty.
    static func circleCover(center: GeoPoint, radiusMeters: Double) -> Cover? {
        guard center.lat.isFinite, center.lon.isFinite, !radiusMeters.isNaN, radiusMeters >= 0 else { return nil }
        let center = center.normalized
        let angle = radiusMeters / Haversine.earthRadiusMeters
        guard angle < .pi else { return .world }
        let region = searchBox(center: center, angle: angle)
        let grid = finestGrid(for: region)
        var cells: [UInt64] = []
        forEachCell(in: region, grid: grid) { row, column in
            let bounds = grid.bounds(row: row, column: column)
            if minimumDistance(from: center, to: bounds) <= radiusMeters {
                cells.append(grid.cellIndex(row: row, column: column))
            }
        }
        return cover(cells: cells, grid: grid)
    }

    /// The cover behind ``box(_:)``, or nil when it is empty.
    static func boxCover(_ box: GeoBoundingBox) -> Cover? {
        guard box.minLat.isFinite, box.maxLat.isFinite, box.minLon.isFinite, box.maxLon.isFinite,
              box.minLat <= box.maxLat, box.maxLat >= -90, box.minLat <= 90
        else { return nil }
        let minLat = GeoPoint.clampedLatitude(box.minLat)
        let maxLat = GeoPoint.clampedLatitude(box.maxLat)
        let region: GeoBoundingBox
        if box.maxLon - box.minLon >= 360 {
            region = GeoBoundingBox(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180)
        } else {
            region = GeoBoundingBox(
                minLat: minLat,
                maxLat: maxLat,
                minLon: GeoPoint.wrappedLongitude(box.minLon),
                maxLon: GeoPoint.wrappedLongitude(box.maxLon)
            )
        }
        let grid = finestGrid(for: region)
        var cells: [UInt64] = []
        forEachCell(in: region, grid: grid) { row, column in
            cells.append(grid.cellIndex(row: row, column: column))
        }
        return cover(cells: cells, grid: grid)
    }

    /// Merges `cells` of `grid` into at most ``maximumRangeCount`` spans.
    static func cover(cells: [UInt64], grid: Geohash.Grid) -> Cover? {
        guard !cells.isEmpty else { return nil }
        let shift = UInt64(5 * (Geohash.storagePrecision - grid.precision))
        var spans: [Span] = []
        for cell in cells.sorted() {
            let lower = cell << shift
            let upper = (cell + 1) << shift
            if let last = spans.last, last.upper >= lower {
                spans[spans.count - 1].upper = max(last.upper, upper)
            } else {
                spans.append(Span(lower: lower, upper: upper))
            }
        }
        return Cover(precision: grid.precision, spans: Span.mergingSmallestGaps(spans, limit: maximumRangeCount))
    }

    /// A latitude/longitude box (in normalized form) holding every point within `angle` radians of
    /// `center`, slightly enlarged against rounding; all longitudes when the circle may reach a pole.
    static func searchBox(center: GeoPoint, angle: Double) -> GeoBoundingBox {
        let angleDegrees = Haversine.degrees(angle)
        let margin = 1e-9 + angleDegrees * 1e-9
        let minLat = center.lat - angleDegrees - margin
        let maxLat = center.lat + angleDegrees + margin
        let allLongitudes = GeoBoundingBox(minLat: max(-90, minLat), maxLat: min(90, maxLat), minLon: -180, maxLon: 180)
        guard minLat > -90, maxLat < 90 else { return allLongitudes }
        // Widest longitude difference on a spherical cap that does not contain a pole.
        let ratio = sin(angle) / cos(Haversine.radians(center.lat))
        guard ratio < 1 else { return allLongitudes }
        let halfWidth = Haversine.degrees(asin(ratio)) * (1 + 1e-9) + 1e-9
        guard halfWidth < 180 else { return allLongitudes }
        return GeoBoundingBox(
            minLat: minLat,
            maxLat: maxLat,
            minLon: GeoPoint.wrappedLongitude(center.lon - halfWidth),
            maxLon: GeoPoint.wrappedLongitude(center.lon + halfWidth)
        )
    }

    /// The finest grid, at most `maximumPrecision` (``Geohash/storagePrecision`` unless given), on which
    /// `region` spans no more than `budget` cells (``cellBudget`` unless given); precision 1 (32 cells in all)
    /// at worst.
    static func finestGrid(
        for region: GeoBoundingBox, budget: Int = cellBudget, maximumPrecision: Int = Geohash.storagePrecision
    ) -> Geohash.Grid {
        for precision in stride(from: maximumPrecision, to: 1, by: -1) {
            let grid = Geohash.Grid(precision: precision)
            let rows = grid.row(forLatitude: region.maxLat) - grid.row(forLatitude: region.minLat) + 1
            let columns = columnRuns(of: region, grid: grid).reduce(0) { $0 + UInt64($1.count) }
            if rows * columns <= UInt64(budget) {
                return grid
            }
        }
        return Geohash.Grid(precision: 1)
    }

    /// Calls `body` with the row and column of every cell of `grid` that a point of `region`
    /// (a normalized box) can be stored in.
    static func forEachCell(in region: GeoBoundingBox, grid: Geohash.Grid, _ body: (UInt64, UInt64) -> Void) {
        let rows = grid.row(forLatitude: region.minLat)...grid.row(forLatitude: region.maxLat)
        let runs = columnRuns(of: region, grid: grid)
        for row in rows {
            for run in runs {
                for column in run {
                    body(row, column)
                }
            }
        }
    }

    /// Disjoint runs of column numbers covering the longitudes of a normalized `region`, including the
    /// column on the far side of the antimeridian when the region touches longitude ±180 (a point at 180 is
    /// stored in the last column, one at -180 in the first).
    static func columnRuns(of region: GeoBoundingBox, grid: Geohash.Grid) -> [ClosedRange<UInt64>] {
        let last = grid.columnCount - 1
        if region.minLon <= -180, region.maxLon >= 180 {
            return [0...last]
        }
        let west = grid.column(forLongitude: region.minLon)
        let east = grid.column(forLongitude: region.maxLon)
        var runs: [ClosedRange<UInt64>]
        if region.crossesAntimeridian {
            runs = west <= east + 1 ? [0...last] : [0...east, west...last]
        } else {
            runs = [west...east]
        }
        if region.containsLongitudeExactly(-180) {
            runs.append(last...last)
        }
        if region.containsLongitudeExactly(180) {
            runs.append(0...0)
        }
        return disjoint(runs)
    }

    /// `runs` sorted and with overlapping or touching runs joined.
    static func disjoint(_ runs: [ClosedRange<UInt64>]) -> [ClosedRange<UInt64>] {
        var result: [ClosedRange<UInt64>] = []
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let previous = result.last, run.lowerBound <= previous.upperBound + 1 {
                result[result.count - 1] = previous.lowerBound...max(previous.upperBound, run.upperBound)
            } else {
                result.append(run)
            }
        }
        return result
    }

    /// The longitude interval of a box measured eastwards from its western edge.
    struct LongitudeExtent {
        /// Western edge in degrees, as given.
        let west: Double
        /// Eastward extent in degrees (0..<360), meaningless when ``isFull``.
        let span: Double
        /// Whether the box covers every longitude.
        let isFull: Bool

        /// The extent of `box` (any longitudes; `minLon > maxLon` wraps).
        init(_ box: GeoBoundingBox) {
            west = box.minLon
            isFull = box.maxLon - box.minLon >= 360
            span = isFull ? 360 : LongitudeExtent.positiveRemainder(box.maxLon - box.minLon)
        }

        /// How far east of the western edge `lon` lies, in 0..<360 degrees.
        func offset(of lon: Double) -> Double {
            LongitudeExtent.positiveRemainder(lon - west)
        }

        /// `value` modulo 360, in 0..<360.
        static func positiveRemainder(_ value: Double) -> Double {
            let remainder = value.truncatingRemainder(dividingBy: 360)
            let positive = remainder < 0 ? remainder + 360 : remainder
            return positive >= 360 ? 0 : positive
        }
    }

    /// The exact distance from `point` to the segment `minLat...maxLat` of the meridian at `lon`, which is
    /// `gap` degrees (0...180) of longitude away from the point.
    static func minimumDistance(
        from point: GeoPoint, toMeridianAt lon: Double, gap: Double, minLat: Double, maxLat: Double
    ) -> Double {
        var best = min(
            Haversine.distance(point, GeoPoint(lat: minLat, lon: lon)),
            Haversine.distance(point, GeoPoint(lat: maxLat, lon: lon))
        )
        // Along a meridian less than 90° away, the distance has a single interior minimum at the foot of
        // the perpendicular from the point; further away, it is smallest at an end of the segment.
        let cosGap = cos(Haversine.radians(gap))
        if cosGap > 0 {
            let latitude = Haversine.radians(point.lat)
            let foot = Haversine.degrees(atan2(sin(latitude), cos(latitude) * cosGap))
            if foot > minLat, foot < maxLat {
                best = min(best, Haversine.distance(point, GeoPoint(lat: foot, lon: lon)))
            }
        }
        return best
    }
}
