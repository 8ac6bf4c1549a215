/// One step of a nearest-first search: cells at increasing distance from the search center.
///
/// The rings of ``GeohashCover/rings(center:radiusMeters:)`` are disjoint and ordered outwards. Every
/// point stored in a ring's ranges is at least ``minimumDistanceMeters`` from the center, and every point
/// within ``coveredRadiusMeters`` of the center is stored in this ring or an earlier one.
public struct GeohashRing: Sendable, Hashable {
    /// Sorted, non-overlapping ranges of this ring, disjoint from every other ring's ranges.
    public let ranges: [GeohashRange]
    /// A lower bound on the haversine distance from the center to any point in this ring (0 for the first ring).
    public let minimumDistanceMeters: Double
    /// Every point within this distance of the center lies in this ring or an earlier one.
    public let coveredRadiusMeters: Double

    /// A ring with the given ranges and distance bounds.
    public init(ranges: [GeohashRange], minimumDistanceMeters: Double, coveredRadiusMeters: Double) {
        self.ranges = ranges
        self.minimumDistanceMeters = minimumDistanceMeters
        self.coveredRadiusMeters = coveredRadiusMeters
    }
}

extension GeohashCover {
    /// The most rings ``rings(center:radiusMeters:)`` returns.
    public static let maximumRingCount = 8
    /// The smallest radius of the innermost ring, unless the whole search radius is smaller.
    public static let innermostRingRadiusMeters = 100.0

    /// Disjoint rings of geohash ranges, ordered outwards, whose union covers every point within
    /// `radiusMeters` of `center`.
    ///
    /// Ring `i` completes the cover of a circle of radius `radiusMeters / 2^(n-1-i)` (radii halve inwards,
    /// at most ``maximumRingCount`` rings, none smaller than ``innermostRingRadiusMeters``), minus what
    /// earlier rings hold, so a point in ring `i > 0` is farther than the previous radius: that radius is
    /// its ``GeohashRing/minimumDistanceMeters``. A search that queries rings in order can stop once it has
    /// `limit` results whose distances are all at most the next ring's minimum distance. Each ring's cover
    /// uses its own precision (finer inside); a ring that would be empty is left out and the ring
    /// before it takes over its ``GeohashRing/coveredRadiusMeters``.
    public static func rings(center: GeoPoint, radiusMeters: Double) -> [GeohashRing] {
        guard center.lat.isFinite, center.lon.isFinite, !radiusMeters.isNaN, radiusMeters >= 0 else { return [] }
        var covered: [Span] = []
        var rings: [GeohashRing] = []
        var previousRadius = 0.0
        for radius in ringRadii(for: radiusMeters) {
            guard let cover = circleCover(center: center, radiusMeters: radius) else { break }
            let fresh = Span.subtracting(covered, from: cover.spans)
            if !fresh.isEmpty {
                rings.append(GeohashRing(
                    ranges: fresh.map { $0.range(precision: cover.precision) },
                    minimumDistanceMeters: previousRadius,
                    coveredRadiusMeters: radius
                ))
            } else if let last = rings.popLast() {
                // Earlier rings already hold this whole circle (coarse cells near a pole, say).
                rings.append(GeohashRing(
                    ranges: last.ranges,
                    minimumDistanceMeters: last.minimumDistanceMeters,
                    coveredRadiusMeters: radius
                ))
            }
            covered = Span.normalized(covered + cover.spans)
            previousRadius = radius
        }
        return rings
    }

    /// The ring radii for a search radius, innermost first, ending with the search radius (capped at half
    /// the Earth's circumference, which already reaches every point).
    static func ringRadii(for radiusMeters: Double) -> [Double] {
        let outer = min(radiusMeters, Double.pi * Haversine.earthRadiusMeters)
        var radii = [outer]
        while radii.count < maximumRingCount, radii[0] / 2 >= innermostRingRadiusMeters {
            radii.insert(radii[0] / 2, at: 0)
        }
        return radii
    }
}
