import ClassTodayCore
import GRDB
import Synchronization

/// Swift functions made callable from SQL on every connection.
enum SQLiteFunctions {
    /// `ct_distance(lat1, lon1, lat2, lon2)`: haversine meters; NULL when a coordinate is NULL.
    static let distance = DatabaseFunction("ct_distance", argumentCount: 4, pure: true) { values in
        guard let lat1 = Double.fromDatabaseValue(values[0]), let lon1 = Double.fromDatabaseValue(values[1]),
              let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3])
        else { return nil }
        return Haversine.distance(GeoPoint(lat: lat1, lon: lon1), GeoPoint(lat: lat2, lon: lon2))
    }

    /// `ct_matches(query, name, description)`: the exact keyword semantics of ``SearchQuery/matches(_:)``,
    /// used to confirm the candidates an FTS expression selects.
    static let matches = DatabaseFunction("ct_matches", argumentCount: 3, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]), let query = parsedQueries.query(text) else { return false }
        let name = String.fromDatabaseValue(values[1]) ?? ""
        let description = String.fromDatabaseValue(values[2]) ?? ""
        return query.matches(ClassSearchDocument.text(name: name, description: description))
    }

    /// Queries parsed once per text: `ct_matches` is called once per candidate row with the same query.
    private static let parsedQueries = QueryCache()

    /// A small bounded cache of parsed keyword queries.
    private final class QueryCache: Sendable {
        private let entries = Mutex<[String: SearchQuery?]>([:])

        func query(_ text: String) -> SearchQuery? {
            if let cached = entries.withLock({ $0[text] }) { return cached }
            let parsed = SearchTokenizer.query(text)
            entries.withLock { entries in
                if entries.count >= 256 { entries.removeAll(keepingCapacity: true) }
                entries[text] = parsed
            }
            return parsed
        }
    }

    /// Adds the functions to a connection.
    static func register(in db: Database) {
        db.add(function: distance)
        db.add(function: matches)
    }
}

/// The text of a listing that keyword search reads: its name, a line break, its description.
enum ClassSearchDocument {
    /// The searchable text.
    static func text(name: String, description: String) -> String {
        name + "\n" + description
    }

    /// The FTS tokens of a listing, space-separated.
    static func tokens(name: String, description: String) -> String {
        SearchTokenizer.indexText(for: text(name: name, description: description))
    }
}
