import ClassTodayCore
import Foundation

/// Users, on either backend. An update reads the row under a row lock, so that concurrent updates of one user on
/// several PostgreSQL nodes apply one after the other.
public struct SQLUserRepository: UserRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func create(_ user: NewUser, at date: Date) async throws -> User {
        let created = Self.newUser(user, at: date)
        do {
            try await Self.insert(created, passwordHash: user.passwordHash, database)
        } catch is SQLUniqueViolation {
            throw DomainError.conflict("an account with this email already exists")
        }
        return created
    }

    /// The user a signup creates, not stored yet.
    static func newUser(_ user: NewUser, at date: Date) -> User {
        User(id: Identifier.make(at: date), email: user.email.trimmingWhitespace(), nickname: user.nickname,
             termsVersion: user.termsVersion, termsAcceptedAt: user.termsVersion == nil ? nil : date, createdAt: date,
             locale: user.locale)
    }

    /// The `password_hash` of an account without a password (created by a sign-in provider): no bcrypt hash is
    /// empty, and password login skips such rows.
    static let noPassword = ""

    /// The unique `email_normalized` of an account a sign-in provider created: no email address has this form, so it
    /// never takes an address from a signup, and it belongs to the account, not to the identity that created it (which
    /// may be unlinked, and then sign in again as a new account).
    static func providerAccountKey(_ userId: String) -> String {
        "account:" + userId
    }

    /// Inserts a user's row (on its own, or inside the caller's transaction). `emailKey`, the unique
    /// `email_normalized`, defaults to the normalized email.
    package static func insert(
        _ user: User, passwordHash: String, emailKey: String? = nil, _ executor: any SQLExecutor
    ) async throws {
        let created = user.createdAt.millisecondsSince1970
        try await executor.execute("""
            INSERT INTO users (id, email, email_normalized, password_hash, nickname, description, company, subjects,
                profile_image_id, lat, lon, keyword_location, detail_location, terms_version, terms_accepted_at, created_at, updated_at,
                email_verified_at, locale)
            VALUES (\(user.id), \(user.email), \(emailKey ?? UserRules.normalizedEmail(user.email)), \(passwordHash), \(user.nickname),
                \(user.description), \(user.company), \(StoredList.encode(user.subjects)), \(user.profileImageId),
                \(user.location?.lat), \(user.location?.lon), \(user.keywordLocation), \(user.detailLocation),
                \(user.termsVersion), \(user.termsAcceptedAt?.millisecondsSince1970), \(created), \(created),
                \(user.emailVerified ? created : nil), \(user.locale.rawValue))
            """)
    }

    public func user(id: String) async throws -> User? {
        try await database.row("SELECT * FROM users WHERE id = \(id) AND deleted_at IS NULL").map(User.init(row:))
    }

    public func credentials(email: String) async throws -> UserCredentials? {
        try await database.row("""
            SELECT id, password_hash FROM users
            WHERE email_normalized = \(UserRules.normalizedEmail(email)) AND password_hash <> \(Self.noPassword)
            """)
            .map { row in UserCredentials(userId: try row["id"], passwordHash: try row["password_hash"]) }
    }

    public func update(id: String, _ change: @Sendable (inout User) throws -> Void) async throws -> User {
        try await database.transaction { db in
            guard let row = try await db.row("SELECT * FROM users WHERE id = \(id) \(raw: db.dialect.lockForNoKeyUpdate)") else {
                throw DomainError.notFound("user")
            }
            var user = try User(row: row)
            try change(&user)
            try await db.execute("""
                UPDATE users SET nickname = \(user.nickname), description = \(user.description), company = \(user.company),
                    subjects = \(StoredList.encode(user.subjects)), profile_image_id = \(user.profileImageId),
                    lat = \(user.location?.lat), lon = \(user.location?.lon), keyword_location = \(user.keywordLocation),
                    detail_location = \(user.detailLocation), terms_version = \(user.termsVersion),
                    terms_accepted_at = \(user.termsAcceptedAt?.millisecondsSince1970), locale = \(user.locale.rawValue),
                    updated_at = \(Date().millisecondsSince1970)
                WHERE id = \(id)
                """)
            return user
        }
    }

    public func delete(id: String, at date: Date) async throws {
        try await database.transaction { db in
            guard try await db.row("SELECT id FROM users WHERE id = \(id) AND deleted_at IS NULL \(raw: db.dialect.lockForUpdate)") != nil else {
                throw DomainError.notFound("user")
            }
            let now = date.millisecondsSince1970
            try await Self.deleteListings(writtenBy: id, at: now, db)
            // Favourites the user saved on other listings: their counts go down with them.
            try await db.execute("""
                UPDATE classes SET favorite_count = favorite_count - 1
                WHERE id IN (SELECT class_id FROM favorites WHERE user_id = \(id))
                """)
            for table in ["favorites", "sessions", "refresh_tokens", "identities", "notifications", "alert_index", "alerts",
                          "push_deliveries", "devices", "push_outbox", "chat_room_mutes", "account_tokens", "mail_outbox"] {
                try await db.execute("DELETE FROM \(raw: table) WHERE user_id = \(id)")
            }
            try await db.execute("DELETE FROM blocks WHERE blocker_id = \(id) OR blocked_id = \(id)")
            try await db.execute("""
                UPDATE users SET email = '', email_normalized = \("deleted:" + id), password_hash = '',
                    nickname = \(AccountDeletion.deletedNickname), description = '', company = '', subjects = '[]',
                    profile_image_id = NULL, lat = NULL, lon = NULL, keyword_location = NULL, detail_location = NULL,
                    terms_version = NULL, terms_accepted_at = NULL, last_warning_reason = NULL, email_verified_at = NULL,
                    is_operator = \(raw: db.dialect.falseLiteral), deleted_at = \(now), updated_at = \(now)
                WHERE id = \(id)
                """)
        }
    }

    /// Deletes the listings `writerId` wrote, as the writer's own deletion does, and erases from all of them, deleted
    /// earlier too, what locates the writer (description, place, location, district). Their rows stay, with their
    /// names, so that rooms and matches keep their class summaries.
    private static func deleteListings(writtenBy writerId: String, at now: Int64, _ db: any SQLExecutor) async throws {
        let live: [String] = try await db.rows("""
            SELECT id FROM classes WHERE writer_id = \(writerId) AND deleted_at IS NULL ORDER BY id \(raw: db.dialect.lockForNoKeyUpdate)
            """).map { try $0["id"] }
        for classId in live {
            try await db.dialect.classIndex.remove(classId: classId, db)
        }
        let written: SQLStatement = "SELECT id FROM classes WHERE writer_id = \(writerId)"
        for table in ["favorites", "class_images", "alert_outbox"] {
            try await db.execute("DELETE FROM \(raw: table) WHERE class_id IN (\(written))")
        }
        try await db.execute("""
            UPDATE classes SET description = '', place = NULL, lat = NULL, lon = NULL, geohash = NULL, keyword_location = NULL,
                status = 'closed', favorite_count = 0, image_ids = '[]', deleted_at = COALESCE(deleted_at, \(now)), updated_at = \(now)
            WHERE writer_id = \(writerId)
            """)
    }
}

extension User {
    /// Decodes a `users` row.
    init(row: SQLRow) throws {
        self.init(
            id: try row["id"], email: try row["email"], nickname: try row["nickname"], description: try row["description"],
            company: try row["company"], subjects: StoredList.decode(try row["subjects"]),
            profileImageId: try row["profile_image_id"], location: try row.location(),
            keywordLocation: try row["keyword_location"], detailLocation: try row["detail_location"],
            rating: try row.rating(sum: "rating_sum", count: "rating_count"), termsVersion: try row["terms_version"],
            termsAcceptedAt: (try row["terms_accepted_at"] as Int64?).map(Date.init(millisecondsSince1970:)),
            createdAt: try row.date("created_at"),
            warnings: UserWarnings(count: try row["warning_count"], lastReason: try row["last_warning_reason"],
                                   lastAt: try row.optionalDate("last_warned_at")),
            emailVerified: try row.optionalDate("email_verified_at") != nil,
            locale: UserLocale(rawValue: try row["locale"]) ?? .default)
    }
}
