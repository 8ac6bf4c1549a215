import ClassTodayCore
import Foundation

/// The points a walk over the listings' points keeps: those within its circle after the page's cursor that pass
/// the search's filters, and of no hidden writer.
struct PointFilter {
    let circle: ClassSearch.Circle
    /// The cursor's last key as the points order them (distance, then packed id, which orders as the id's text).
    let after: PointKey?
    let filters: PointFilters
    /// The numbers of the writers left out (``hiddenWriters(in:_:)``).
    let hidden: Set<UInt32>

    /// `point`'s key, its distance from the centre and packed id, when the walk keeps it.
    func key(of point: ClassPoints.Point) -> PointKey? {
        passes(point) ? place(of: point) : nil
    }

    /// Whether `point` passes the search's filters and is of no hidden writer, wherever it lies.
    func passes(_ point: ClassPoints.Point) -> Bool {
        point.passes(filters, hidden: hidden)
    }

    /// The key of a `point` that passes, when it lies within the circle after the cursor.
    func place(of point: ClassPoints.Point) -> PointKey? {
        let distance = Haversine.distance(GeoPoint(lat: point.lat, lon: point.lon), circle.center)
        guard distance <= circle.radius else { return nil }
        if let after, (distance, point.id) <= (after.distance, after.id) { return nil }
        return (distance, point.id)
    }
}

extension SearchPlan {
    /// The filter of a walk of `circle` over `points`; nil when they cannot continue the page's cursor: its last key is
    /// no distance, or its id is neither one they pack nor the empty id of a walk that ended its page at a cell
    /// (``CellWalkPlan``), which packs as the least.
    func pointFilter(_ points: ClassPoints, circle: ClassSearch.Circle, _ db: any SQLExecutor) async throws -> PointFilter? {
        var after: PointKey?
        if let position = startPosition {
            guard case .double(let distance) = position.value, let id = position.id.isEmpty ? 0 : Identifier.packed(position.id)
            else { return nil }
            after = (distance, id)
        }
        return PointFilter(circle: circle, after: after, filters: PointFilters(search), hidden: try await hiddenWriters(in: points, db))
    }

    /// The numbers of the writers whose listings `points` must leave out: suspended users, and those the viewer blocks
    /// or is blocked by.
    func hiddenWriters(in points: ClassPoints, _ db: any SQLExecutor) async throws -> Set<UInt32> {
        let suspended: [String] = try await db.rows(ClassModeration.suspendedUsers(at: Date())).map { try $0["id"] }
        return Set((suspended + blockedWriters).compactMap(points.writerNumber(of:)))
    }
}
