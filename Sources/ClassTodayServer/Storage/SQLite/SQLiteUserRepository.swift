import ClassTodayCore
import Foundation
import GRDB

/// Users stored in the embedded SQLite database.
public struct SQLiteUserRepository: UserRepository {
    private let writer: DatabasePool

    /// Creates the repository over an open store.
    public init(store: SQLiteStore) {
        self.writer = store.writer
    }

    public func create(_ user: NewUser, at date: Date) async throws -> User {
        let created = User(id: Identifier.make(at: date), email: user.email.trimmingWhitespace(),
                           nickname: user.nickname, createdAt: date)
        do {
            try await writer.write { db in try Self.insertRow(created, passwordHash: user.passwordHash, db) }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw DomainError.conflict("an account with this email already exists")
        }
        return created
    }

    /// Inserts a user's row inside the caller's transaction.
    static func insertRow(_ user: User, passwordHash: String, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO users (id, email, email_normalized, password_hash, nickname, description, company, subjects,
                profile_image_id, lat, lon, keyword_location, detail_location, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                user.id, user.email, UserRules.normalizedEmail(user.email), passwordHash, user.nickname, user.description,
                user.company, StoredList.encode(user.subjects), user.profileImageId, user.location?.lat, user.location?.lon,
                user.keywordLocation, user.detailLocation, user.createdAt.millisecondsSince1970, user.createdAt.millisecondsSince1970])
    }

    public func user(id: String) async throws -> User? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id]).map(User.init(row:))
        }
    }

    public func credentials(email: String) async throws -> UserCredentials? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT id, password_hash FROM users WHERE email_normalized = ?",
                             arguments: [UserRules.normalizedEmail(email)])
                .map { UserCredentials(userId: $0["id"], passwordHash: $0["password_hash"]) }
        }
    }

    public func update(id: String, _ change: @Sendable (inout User) throws -> Void) async throws -> User {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id]) else {
                throw DomainError.notFound("user")
            }
            var user = User(row: row)
            try change(&user)
            try db.execute(
                sql: """
                    UPDATE users SET nickname = ?, description = ?, company = ?, subjects = ?, profile_image_id = ?,
                        lat = ?, lon = ?, keyword_location = ?, detail_location = ?, updated_at = ?
                    WHERE id = ?
                    """,
                arguments: [user.nickname, user.description, user.company, StoredList.encode(user.subjects),
                            user.profileImageId, user.location?.lat, user.location?.lon, user.keywordLocation,
                            user.detailLocation, Date().millisecondsSince1970, id])
            return user
        }
    }
}

extension User {
    /// Decodes a `users` row.
    init(row: Row) {
        let lat: Double? = row["lat"]
        let lon: Double? = row["lon"]
        let ratingCount: Int = row["rating_count"]
        let ratingSum: Double = row["rating_sum"]
        self.init(
            id: row["id"], email: row["email"], nickname: row["nickname"], description: row["description"],
            company: row["company"], subjects: StoredList.decode(row["subjects"]),
            profileImageId: row["profile_image_id"],
            location: lat.flatMap { lat in lon.map { GeoPoint(lat: lat, lon: $0) } },
            keywordLocation: row["keyword_location"], detailLocation: row["detail_location"],
            rating: Rating(average: ratingCount == 0 ? 0 : ratingSum / Double(ratingCount), count: ratingCount),
            createdAt: Date(millisecondsSince1970: row["created_at"]))
    }
}

/// Lists of enum values stored as a JSON array of their raw values.
enum StoredList {
    /// The JSON text of `values`.
    static func encode<Value: RawRepresentable<String>>(_ values: [Value]) -> String {
        encodeStrings(values.map(\.rawValue))
    }

    /// The values of a stored JSON array, skipping any this version does not know.
    static func decode<Value: RawRepresentable<String>>(_ text: String) -> [Value] {
        decodeStrings(text).compactMap(Value.init(rawValue:))
    }

    /// The JSON text of a list of strings.
    static func encodeStrings(_ values: [String]) -> String {
        let data = (try? JSONEncoder().encode(values)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The strings of a stored JSON array (empty for NULL or malformed text).
    static func decodeStrings(_ text: String?) -> [String] {
        guard let text else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
