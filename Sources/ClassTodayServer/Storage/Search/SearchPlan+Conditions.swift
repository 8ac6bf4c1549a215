import ClassTodayCore
import Foundation

extension SearchPlan {
    /// The columns of a ``SearchKey`` read over `classes c`, before its sort values: the writer's too when the viewer blocks
    /// some.
    var keyColumns: SQLStatement {
        blockedWriters.isEmpty ? "c.id, c.created_at" : "c.id, c.created_at, c.writer_id"
    }

    /// The conditions selecting the search's circle and box, within `ranges` when given; nil when nothing can match.
    func areaConditions(ranges: [GeohashRange]?) -> AreaConditions? {
        var area = AreaConditions()
        if let ranges {
            if ranges.isEmpty { return nil }
            area.conditions.append("(\(ranges.map { "(c.geohash >= \($0.lower) AND c.geohash < \($0.upper))" }.joined(with: " OR ")))")
        }
        if let box = search.box {
            area.conditions.append("c.lat BETWEEN \(box.minLat) AND \(box.maxLat)")
            var longitude: SQLStatement = box.crossesAntimeridian
                ? "c.lon >= \(box.minLon) OR c.lon <= \(box.maxLon)" : "c.lon BETWEEN \(box.minLon) AND \(box.maxLon)"
            // 180 and -180 name one meridian (``GeoBoundingBox/containsLongitude(_:)``): a box holding it holds listings
            // at either.
            if box.containsLongitude(180) { longitude.append(" OR c.lon IN (180, -180)") }
            area.conditions.append("(\(longitude))")
        }
        if let circle = search.circle {
            // Geohash ranges leave out the listings without a place; without ranges this does, as the distance of one
            // is no number (PostgreSQL's `greatest` takes it for 0: at the centre).
            if ranges == nil { area.conditions.append("c.lat IS NOT NULL") }
            let distance = dialect.distance(lat1: "c.lat", lon1: "c.lon", lat2: "\(circle.center.lat)", lon2: "\(circle.center.lon)")
            area.distance = distance
            area.radius = circle.radius
        }
        return area
    }

    /// The conditions of the search's plain column filters (status, type, district, masks, price).
    var filterConditions: [SQLStatement] { statusConditions + selectiveConditions }

    /// The filters most listings pass: visible, and of the status and type asked.
    var statusConditions: [SQLStatement] {
        var conditions: [SQLStatement] = [ClassModeration.visible(at: Date())]
        if let status = search.status { conditions.append("c.status = \(status.rawValue)") }
        if let type = search.type { conditions.append("c.type = \(type.rawValue)") }
        return conditions
    }

    /// The filters that may leave out most listings: district, subjects, targets, days and prices.
    var selectiveConditions: [SQLStatement] { maskConditions + priceConditions }

    /// The district's, subjects', targets' and days' conditions.
    var maskConditions: [SQLStatement] {
        var conditions: [SQLStatement] = []
        if let district = search.keywordLocation { conditions.append("c.keyword_location = \(district)") }
        for (column, mask) in [("subjects_mask", search.subjects.map(BitMask.of)), ("targets_mask", search.targets.map(BitMask.of)),
                               ("days_mask", search.days.map(BitMask.of))] {
            guard let mask else { continue }
            conditions.append("(c.\(raw: column) & \(mask)) <> 0")
        }
        return conditions
    }

    /// The price range's conditions.
    var priceConditions: [SQLStatement] {
        var conditions: [SQLStatement] = []
        if let minPrice = search.minPrice { conditions.append("c.price >= \(minPrice)") }
        if let maxPrice = search.maxPrice { conditions.append("c.price <= \(maxPrice)") }
        return conditions
    }
}

/// A search's area as statement conditions over `classes c`: its geohash ranges and box, and its circle's distance
/// expression, which callers select and compare with the radius.
struct AreaConditions {
    var conditions: [SQLStatement] = []
    var distance: SQLStatement?
    var radius = 0.0

    /// The conditions and, for a circle, the distance within the radius.
    var all: [SQLStatement] {
        conditions + (distance.map { ["\($0) <= \(radius)"] } ?? [])
    }
}
