import ClassTodayCore
import Foundation

/// The sort key of one result, and what is needed to confirm a keyword.
struct SearchKey {
    let id: String
    let sort: ClassSearch.Sort
    let tier: SearchQuery.RelevanceTier?
    let createdAt: Int64
    let distance: Double?
    let name: String?
    let description: String?
    let writerId: String?
    /// Whether the name's own index tokens hold the keyword's (``ClassSearchIndex/newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``).
    let nameHit: Bool

    /// Whether `key` comes before `other` nearest first: by distance, then id, as ``NearestFirstPage`` orders keys.
    static func isNearer(_ key: SearchKey, than other: SearchKey) -> Bool {
        (key.distance ?? 0, key.id) < (other.distance ?? 0, other.id)
    }

    /// The key of a listing `distance` metres from a nearest-first search's centre.
    init(id: String, distance: Double) {
        (self.id, self.distance, sort, tier, createdAt) = (id, distance, .distance, nil, 0)
        (name, description, writerId, nameHit) = (nil, nil, nil, false)
    }

    /// The key of a listing's point found by a walk over the listings' points.
    init(point: PointKey) {
        self.init(id: Identifier.text(packed: point.id), distance: point.distance)
    }

    init(row: SQLRow, sort: ClassSearch.Sort, tier: SearchQuery.RelevanceTier? = nil) throws {
        id = try row["id"]
        createdAt = try row["created_at"]
        writerId = row.contains("writer_id") ? try row["writer_id"] : nil
        distance = row.contains("distance") ? try row["distance"] : nil
        name = row.contains("name") ? try row["name"] : nil
        description = row.contains("description") ? try row["description"] : nil
        nameHit = row.contains("name_hit") ? try row["name_hit"] as Bool : false
        (self.sort, self.tier) = (sort, tier)
    }

    /// The sort values before the id, as the page cursor carries them (computed for the page's last key only: an
    /// array per key read was a walk's most frequent allocation).
    var values: [PageCursorValue] {
        switch sort {
        case .distance: [.double(distance ?? 0)]
        case .relevance: [.int(Int64(tier?.rawValue ?? 0)), .int(createdAt)]
        case .recent: [.int(createdAt)]
        }
    }

    /// The searchable text, when it was read.
    var text: String? {
        name.map { ClassSearchDocument.text(name: $0, description: description ?? "") }
    }
}

/// A keyset position: the sort value and id of the last result seen.
struct SearchPosition {
    let value: PageCursorValue
    let id: String
}

/// A listing's point in the in-memory walk: its distance from the centre and its packed id.
typealias PointKey = (distance: Double, id: UInt128)
