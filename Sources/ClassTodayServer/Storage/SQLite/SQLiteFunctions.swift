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

    /// `ct_search_tokens(name, description)`: ``ClassSearchDocument/tokens(name:description:)``, for the triggers that
    /// keep the keyword index and the builds that fill it (``KeywordIndexTriggers``, ``KeywordIndexBuild``).
    static let searchTokens = DatabaseFunction("ct_search_tokens", argumentCount: 2, pure: true) { values in
        ClassSearchDocument.tokens(name: String.fromDatabaseValue(values[0]) ?? "", description: String.fromDatabaseValue(values[1]) ?? "")
    }

    /// `ct_search_cells(geohash, keyword_location)`: ``ClassSearchDocument/cells(geohash:district:)``, for the triggers
    /// that keep the keyword index and the builds that fill it.
    static let searchCells = DatabaseFunction("ct_search_cells", argumentCount: 2, pure: true) { values in
        ClassSearchDocument.cells(geohash: String.fromDatabaseValue(values[0]), district: String.fromDatabaseValue(values[1]))
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
        db.add(function: searchTokens)
        db.add(function: searchCells)
    }
}

/// What the keyword index (`class_search`) indexes of a listing, and the FTS5 expressions that query it. The index
/// has three columns: `name`, the search tokens of the name alone (relevance's first tier), `tokens`, those of the
/// name and description, and `cells`, the listing's geohash prefixes of ``cellPrecisions`` characters and its
/// district's token (``districtToken(_:)``), so that a keyword search within an area or a district intersects two
/// doclists. Its rowid is the listing's (``FTS5ClassIndex/rowid(createdAt:)``).
package enum ClassSearchDocument {
    /// The lengths of the geohash prefixes stored as cell tokens: 156 km down to 150 m cells.
    static let cellPrecisions = 3...7

    /// The cell tokens of a listing whose stored geohash is `geohash` and whose district is `district`,
    /// space-separated; empty without either.
    static func cells(geohash: String?, district: String?) -> String {
        let cells = geohash.map { geohash in cellPrecisions.map { String(geohash.prefix($0)) } } ?? []
        return (cells + (district.map { [districtToken($0)] } ?? [])).joined(separator: " ")
    }

    /// The token of a district (`keywordLocation`) in the `cells` column: `a`, which starts no geohash, then the
    /// name, escaped whole (``SearchTokenizer/literalToken(_:)``).
    static func districtToken(_ district: String) -> String {
        "a" + SearchTokenizer.literalToken(district)
    }

    /// An FTS5 expression selecting the listings whose tokens hold `keyword`'s (a superset of its matches); with
    /// `nameOnly`, those whose name's tokens do.
    package static func match(_ keyword: SearchQuery, nameOnly: Bool = false) -> String {
        "\(nameOnly ? "name" : "tokens") : (\(keyword.ftsMatchExpression))"
    }

    /// ``match(_:)`` restricted to listings stored in `cell` or, for cells finer than ``cellPrecisions``, in its
    /// enclosing cell of the finest stored precision (callers keep the geohash range condition), and to those of
    /// `district` when there is one; nil for cells coarser than ``cellPrecisions``.
    static func match(_ keyword: SearchQuery, in cell: Geohash, district: String? = nil) -> String? {
        cellToken(cell).map { token in
            match(keyword) + " AND cells : \"\(token)\"" + (district.map { " AND " + inDistrict($0) } ?? "")
        }
    }

    /// An FTS5 expression selecting the listings of `district` (``districtToken(_:)``).
    static func inDistrict(_ district: String) -> String {
        "cells : \"\(districtToken(district))\""
    }

    /// The cell token that holds every listing stored in `cell` or, for cells finer than ``cellPrecisions``, in its
    /// enclosing cell of the finest stored precision; nil for cells coarser than ``cellPrecisions``.
    static func cellToken(_ cell: Geohash) -> String? {
        guard cell.precision >= cellPrecisions.lowerBound else { return nil }
        return String(cell.string.prefix(cellPrecisions.upperBound))
    }

    /// The searchable text.
    static func text(name: String, description: String) -> String {
        name + "\n" + description
    }

    /// A listing's keyword tokens, cut once for the backend's index and for ``KeywordVocabulary``.
    struct Tokens {
        /// The tokens of the name and description, space-separated (``tokens(name:description:)``).
        let all: String
        /// The tokens of the name alone.
        let name: String

        /// Cuts `listing`'s name and description.
        init(_ listing: ClassListing) {
            all = ClassSearchDocument.tokens(name: listing.name, description: listing.description)
            name = ClassSearchDocument.tokens(name: listing.name, description: "")
        }
    }

    /// The FTS tokens of a listing, space-separated; with an empty description, those of its name alone.
    static func tokens(name: String, description: String) -> String {
        SearchTokenizer.indexText(for: text(name: name, description: description))
    }
}
