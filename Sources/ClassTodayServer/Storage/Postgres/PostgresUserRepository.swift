import ClassTodayCore
import Foundation
import Logging
import PostgresNIO

/// Users stored in PostgreSQL; the port of ``SQLiteUserRepository``. An update reads the row under a row lock,
/// so that concurrent updates of one user on several nodes apply one after the other.
public struct PostgresUserRepository: UserRepository {
    private let client: PostgresClient
    private let logger = Logger(label: "classtoday.postgres.users")

    /// Creates the repository over an open store.
    public init(store: PostgresStore) {
        self.client = store.client
    }

    public func create(_ user: NewUser, at date: Date) async throws -> User {
        let created = User(id: Identifier.make(at: date), email: user.email.trimmingWhitespace(),
                           nickname: user.nickname, createdAt: date)
        do {
            try await client.query(Self.insertQuery(created, passwordHash: user.passwordHash), logger: logger)
        } catch where PostgresRows.isUniqueViolation(error) {
            throw DomainError.conflict("an account with this email already exists")
        }
        return created
    }

    /// The statement inserting a user's row.
    static func insertQuery(_ user: User, passwordHash: String) -> PostgresQuery {
        let created = user.createdAt.millisecondsSince1970
        return """
            INSERT INTO users (id, email, email_normalized, password_hash, nickname, description, company, subjects,
                profile_image_id, lat, lon, keyword_location, detail_location, created_at, updated_at)
            VALUES (\(user.id), \(user.email), \(UserRules.normalizedEmail(user.email)), \(passwordHash), \(user.nickname),
                \(user.description), \(user.company), \(StoredList.encode(user.subjects)), \(user.profileImageId),
                \(user.location?.lat), \(user.location?.lon), \(user.keywordLocation), \(user.detailLocation), \(created), \(created))
            """
    }

    public func user(id: String) async throws -> User? {
        try await PostgresRows.all(client.query("SELECT * FROM users WHERE id = \(id)", logger: logger))
            .first.map(PostgresRows.user)
    }

    public func credentials(email: String) async throws -> UserCredentials? {
        let normalized = UserRules.normalizedEmail(email)
        return try await PostgresRows.all(client.query(
            "SELECT id, password_hash FROM users WHERE email_normalized = \(normalized)", logger: logger)
        ).first.map { row in
            UserCredentials(userId: try row["id"].decode(String.self), passwordHash: try row["password_hash"].decode(String.self))
        }
    }

    public func update(id: String, _ change: @Sendable (inout User) throws -> Void) async throws -> User {
        try await PostgresRows.transaction(client, logger: logger) { connection in
            guard let row = try await PostgresRows.all(connection.query(
                "SELECT * FROM users WHERE id = \(id) FOR NO KEY UPDATE", logger: logger)).first
            else { throw DomainError.notFound("user") }
            var user = try PostgresRows.user(row)
            try change(&user)
            try await connection.query("""
                UPDATE users SET nickname = \(user.nickname), description = \(user.description), company = \(user.company),
                    subjects = \(StoredList.encode(user.subjects)), profile_image_id = \(user.profileImageId),
                    lat = \(user.location?.lat), lon = \(user.location?.lon), keyword_location = \(user.keywordLocation),
                    detail_location = \(user.detailLocation), updated_at = \(Date().millisecondsSince1970)
                WHERE id = \(id)
                """, logger: logger)
            return user
        }
    }
}
