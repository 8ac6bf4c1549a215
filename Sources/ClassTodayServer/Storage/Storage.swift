import Foundation

/// Where a node keeps its data: the embedded SQLite file (one node), or a PostgreSQL server shared by several nodes.
public enum Storage: Sendable {
    /// The embedded SQLite database.
    case sqlite(SQLiteStore)
    /// A PostgreSQL server.
    case postgres(PostgresStore)

    /// The backend seam the repositories run on.
    public var database: any SQLDatabase {
        switch self {
        case .sqlite(let store): store.database
        case .postgres(let store): store.database
        }
    }

    /// Whether the database answers a trivial query.
    public func isHealthy() async -> Bool {
        switch self {
        case .sqlite(let store): await store.isHealthy()
        case .postgres(let store): await store.isHealthy()
        }
    }
}
