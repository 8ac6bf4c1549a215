import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Decoding of class rows for the PostgreSQL match repository (until it moves onto the seam).
package enum PostgresClassViewQuery {
    /// Decodes the listing of a `classes` row read with an `image_ids` array (its images in order).
    static func listing(row: PostgresRandomAccessRow) throws -> ClassListing {
        ClassListing(
            id: try row["id"].decode(String.self), type: ClassType(rawValue: try row["type"].decode(String.self)) ?? .sell,
            name: try row["name"].decode(String.self), description: try row["description"].decode(String.self),
            days: StoredList.decode(try row["days"].decode(String.self)), time: try row["time"].decode(String?.self),
            place: try row["place"].decode(String?.self), location: try PostgresRows.location(row),
            keywordLocation: try row["keyword_location"].decode(String?.self), price: try row["price"].decode(Int?.self),
            priceUnit: PriceUnit(rawValue: try row["price_unit"].decode(String.self)) ?? .perHour,
            subjects: StoredList.decode(try row["subjects"].decode(String.self)),
            targets: StoredList.decode(try row["targets"].decode(String.self)),
            capacity: try row["capacity"].decode(Int.self),
            status: ClassStatus(rawValue: try row["status"].decode(String.self)) ?? .closed,
            imageIds: try row["image_ids"].decode([String].self), writerId: try row["writer_id"].decode(String.self),
            favoriteCount: try row["favorite_count"].decode(Int.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row["updated_at"].decode(Int64.self)))
    }
}
