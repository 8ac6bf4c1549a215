import ClassTodayCore
import Foundation
import Logging
import PostgresNIO
import Testing
@testable import ClassTodayServer

/// The PostgreSQL user, session, image, chat and match repositories, each test on a fresh database; the
/// concurrency tests run writers through two stores (two connection pools, like two nodes). Runs only when
/// `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("PostgresRepository: users, sessions, images, chat and matches on PostgreSQL", .postgresOnly)
struct PostgresRepositoryTests {
    static let logger = Logger(label: "test.postgres-repositories")

    /// Two stores (nodes) on one new database holding the schema; the caller closes them.
    static func openNodes() async throws -> (PostgresStore, PostgresStore) {
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        return (try PostgresStore.open(url: url, logger: logger), try PostgresStore.open(url: url, logger: logger))
    }

    /// The current time rounded down to what the database keeps (milliseconds).
    static func now() -> Date {
        Date(millisecondsSince1970: Date().millisecondsSince1970)
    }

    /// A new user with a unique email.
    static func makeUser(_ users: SQLUserRepository, _ name: String) async throws -> User {
        try await users.create(NewUser(email: "\(name)-\(UUID().uuidString)@example.com", passwordHash: "hash", nickname: name), at: now())
    }

    /// Inserts an open `sell` class of `writerId` with `capacity` seats and returns its id.
    static func insertClass(_ store: PostgresStore, writerId: String, capacity: Int = 1) async throws -> String {
        let id = Identifier.make()
        let now = Date().millisecondsSince1970
        try await store.client.query("""
            INSERT INTO classes (id, type, name, price_unit, capacity, writer_id, created_at, updated_at)
            VALUES (\(id), 'sell', 'guitar', 'perHour', \(capacity), \(writerId), \(now), \(now))
            """, logger: logger)
        return id
    }

    @Test("users: create, duplicate email in any case, credentials, update, missing user")
    func users() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let users = SQLUserRepository(database: store.database)
        let created = try await users.create(NewUser(email: " Kim@Example.com ", passwordHash: "h1", nickname: "kim"), at: Self.now())
        #expect(created.email == "Kim@Example.com")
        await #expect(throws: DomainError.conflict("an account with this email already exists")) {
            try await SQLUserRepository(database: other.database).create(NewUser(email: "KIM@example.COM", passwordHash: "h2", nickname: "k"), at: Self.now())
        }
        #expect(try await users.credentials(email: "kim@EXAMPLE.com") == UserCredentials(userId: created.id, passwordHash: "h1"))
        #expect(try await users.credentials(email: "lee@example.com") == nil)
        #expect(try await users.user(id: created.id) == created)

        let updated = try await users.update(id: created.id) { user in
            user.nickname = "kim2"
            user.subjects = [.math, .computer]
            user.location = GeoPoint(lat: 37.5, lon: 127.0)
            user.keywordLocation = "관악구"
        }
        #expect(try await users.user(id: created.id) == updated)
        #expect(updated.subjects == [.math, .computer] && updated.location == GeoPoint(lat: 37.5, lon: 127.0))
        await #expect(throws: DomainError.notFound("user")) {
            try await users.update(id: "missing") { $0.nickname = "x" }
        }
    }

    @Test("sessions: lookup until expiry, revoke, delete expired")
    func sessions() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let user = try await Self.makeUser(SQLUserRepository(database: store.database), "s")
        let sessions = SQLSessionRepository(database: store.database)
        let start = Self.now()
        for (hash, lifetime) in [("a", 60.0), ("b", 120), ("c", 3600)] {
            try await sessions.start(SessionGrant(accessTokenHash: hash, refreshTokenHash: "r" + hash, issuedAt: start,
                                                  accessExpiresAt: start + lifetime, refreshExpiresAt: start + 3600), userId: user.id)
        }
        #expect(try await sessions.owner(tokenHash: "a", now: start + 59)?.userId == user.id)
        #expect(try await sessions.owner(tokenHash: "a", now: start + 60) == nil)
        #expect(try await sessions.owner(tokenHash: "zzz", now: start) == nil)
        try await sessions.revoke(tokenHash: "c")
        #expect(try await sessions.owner(tokenHash: "c", now: start) == nil)
        #expect(try await sessions.deleteExpired(before: start + 120) == 2)
        #expect(try await sessions.deleteExpired(before: start + 120) == 0)
    }

    @Test("images: only the uploader deletes; a file stays while a record names it; garbage collection")
    func images() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-images-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = try DiskImageRepository(root: folder)
        let images = SQLImageRecordRepository(database: store.database, images: disk)
        let userRepository = SQLUserRepository(database: store.database)
        let (owner, stranger) = (try await Self.makeUser(userRepository, "o"), try await Self.makeUser(userRepository, "x"))
        let old = Self.now() - 3600
        func upload() async throws -> ImageRecord {
            let blob = try await disk.prepare(Data("same bytes".utf8))
            let record = ImageRecord(id: Identifier.make(), sha256: blob.sha256, format: .png, bytes: blob.bytes, width: 2, height: 3,
                                     uploaderId: owner.id, createdAt: old)
            try await images.create(record, blob: blob)
            return record
        }
        let (first, second) = (try await upload(), try await upload())
        #expect(try await images.record(id: first.id) == first)
        await #expect(throws: DomainError.forbidden("only the uploader may delete this image")) {
            try await images.delete(id: first.id, by: stranger.id)
        }
        _ = try await userRepository.update(id: owner.id) { $0.profileImageId = first.id }
        try await images.delete(id: first.id, by: owner.id)
        #expect(try await images.record(id: first.id) == nil)
        #expect(try await userRepository.user(id: owner.id)?.profileImageId == nil)
        #expect(try await disk.contains(sha256: first.sha256))
        await #expect(throws: DomainError.notFound("image")) { try await images.delete(id: first.id, by: owner.id) }

        #expect(try await images.collectGarbage(uploadedBefore: old) == (0, 0))
        let collected = try await SQLImageRecordRepository(database: other.database, images: disk).collectGarbage(uploadedBefore: Self.now())
        #expect(collected == (1, 1))
        #expect(try await images.record(id: second.id) == nil)
        #expect(try await !disk.contains(sha256: second.sha256))
    }

    @Test("chat: concurrent sends from two nodes get seqs 1...N without gaps; a client id repeated at once stores one message")
    func concurrentAppends() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let userRepository = SQLUserRepository(database: store.database)
        let (seller, buyer) = (try await Self.makeUser(userRepository, "seller"), try await Self.makeUser(userRepository, "buyer"))
        let classId = try await Self.insertClass(store, writerId: seller.id)
        let chats = [SQLChatRepository(database: store.database), SQLChatRepository(database: other.database)]

        let opened = try await withThrowingTaskGroup(of: (room: ChatRoom, created: Bool).self) { group in
            for chat in chats { group.addTask { try await chat.openRoom(classId: classId, userId: buyer.id, at: Self.now()) } }
            return try await group.reduce(into: [(room: ChatRoom, created: Bool)]()) { $0.append($1) }
        }
        #expect(Set(opened.map(\.room.id)).count == 1 && opened.filter(\.created).count == 1)
        let room = opened[0].room
        #expect(room.sellerId == seller.id && room.buyerId == buyer.id)

        // 24 messages with a client id, each sent twice at once (from both nodes), and 16 without one.
        let outgoing: [OutgoingMessage] = (0..<24).flatMap { index in
            let message = OutgoingMessage(roomId: room.id, senderId: index.isMultiple(of: 2) ? seller.id : buyer.id,
                                          clientId: "c\(index)", kind: .text, text: "m\(index)", imageId: nil)
            return [message, message]
        } + (0..<16).map { index in
            OutgoingMessage(roomId: room.id, senderId: buyer.id, clientId: nil, kind: .text, text: "n\(index)", imageId: nil)
        }
        let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
            for (index, message) in outgoing.enumerated() {
                group.addTask { try await chats[index % 2].append([message], at: Self.now()).first!.get() }
            }
            return try await group.reduce(into: [AppendResult]()) { $0.append($1) }
        }
        let stored = results.compactMap { if case .stored(let message) = $0 { message } else { nil } }
        #expect(stored.count == 40)
        #expect(stored.map(\.seq).sorted() == Array(1...40))
        for clientId in (0..<24).map({ "c\($0)" }) {
            let copies = results.filter { $0.message.clientId == clientId }
            #expect(copies.count == 2 && copies[0].message == copies[1].message)
        }

        // A batch: a repeat within it, a stranger's message and a missing room fail or repeat alone.
        let stranger = try await Self.makeUser(userRepository, "stranger")
        let fresh = OutgoingMessage(roomId: room.id, senderId: seller.id, clientId: "batch", kind: .text, text: "b", imageId: nil)
        let batch = try await chats[1].append([
            fresh, OutgoingMessage(roomId: room.id, senderId: stranger.id, clientId: nil, kind: .text, text: "x", imageId: nil),
            fresh, OutgoingMessage(roomId: "missing", senderId: seller.id, clientId: nil, kind: .text, text: "x", imageId: nil),
        ], at: Self.now())
        let first = try batch[0].get()
        #expect(first == .stored(first.message) && first.message.seq == 41)
        #expect(batch[1] == .failure(.forbidden("only the room's members may write in it")))
        #expect(batch[2] == .success(.duplicate(first.message)))
        #expect(batch[3] == .failure(.notFound("room")))

        let reloaded = try #require(try await chats[0].room(id: room.id))
        #expect(reloaded.lastSeq == 41 && reloaded.sellerReadSeq == 41)
        #expect(try await chats[0].messages(roomId: room.id, afterSeq: 0, limit: 100).map(\.seq) == Array(1...41))
        let page = try await chats[1].history(roomId: room.id, beforeSeq: nil, page: PageRequest(limit: 30))
        let rest = try await chats[1].history(roomId: room.id, beforeSeq: nil, page: PageRequest(
            limit: 30, after: PageCursor.decode(try #require(page.nextCursor), ordering: "seq")))
        #expect((page.items + rest.items).map(\.seq) == Array((1...41).reversed()) && rest.nextCursor == nil)
        #expect(try await chats[0].summary(roomId: room.id)?.lastMessage?.seq == 41)
        #expect(try await chats[0].markRead(roomId: room.id, userId: buyer.id, seq: 99) == 41)
    }

    @Test("chat: a room's summary, alone and in the list, carries its class's first image id; none without images")
    func roomSummariesCarryTheClassImage() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let users = SQLUserRepository(database: store.database)
        let (seller, buyer) = (try await Self.makeUser(users, "seller"), try await Self.makeUser(users, "buyer"))
        let pictured = try await Self.insertClass(store, writerId: seller.id)
        let plain = try await Self.insertClass(store, writerId: seller.id)
        try await store.client.query("UPDATE classes SET image_ids = '[\"first-image\",\"second-image\"]' WHERE id = \(pictured)", logger: Self.logger)
        let chats = SQLChatRepository(database: store.database)
        let room = try await chats.openRoom(classId: pictured, userId: buyer.id, at: Self.now()).room
        _ = try await chats.openRoom(classId: plain, userId: buyer.id, at: Self.now())

        #expect(try await chats.summary(roomId: room.id)?.classImageId == "first-image")
        let listed = try await chats.rooms(of: seller.id, page: PageRequest(limit: 10, after: nil)).items
        #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.classId, $0.classImageId) }) == [pictured: "first-image", plain: nil])
    }

    @Test("matches: two accepts of the last seat at once, from two nodes: exactly one wins, the other gets the SQLite conflict")
    func lastSeat() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let userRepository = SQLUserRepository(database: store.database)
        let seller = try await Self.makeUser(userRepository, "seller")
        let buyers = [try await Self.makeUser(userRepository, "b1"), try await Self.makeUser(userRepository, "b2")]
        let chat = SQLChatRepository(database: store.database)
        let nodes = [SQLMatchRepository(database: store.database), SQLMatchRepository(database: other.database)]
        for _ in 0..<5 {
            let classId = try await Self.insertClass(store, writerId: seller.id, capacity: 1)
            var matchIds: [String] = []
            for buyer in buyers {
                let room = try await chat.openRoom(classId: classId, userId: buyer.id, at: Self.now()).room
                matchIds.append(try await nodes[0].propose(roomId: room.id, by: buyer.id, terms: .unspecified, at: Self.now()).match.id)
            }
            let outcomes = await withTaskGroup(of: Result<MatchStep, DomainError>.self) { group in
                for (index, matchId) in matchIds.enumerated() {
                    group.addTask { () -> Result<MatchStep, DomainError> in
                        do { return .success(try await nodes[index].apply(.accept, matchId: matchId, by: seller.id, at: Self.now())) }
                        catch let error as DomainError { return .failure(error) }
                        catch { return .failure(.badRequest("\(error)")) }
                    }
                }
                return await group.reduce(into: [Result<MatchStep, DomainError>]()) { $0.append($1) }
            }
            #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
            #expect(outcomes.contains { $0 == .failure(.conflict("every seat of the class is taken")) })
            let row = try #require(try await store.client.query(
                "SELECT seats_taken, status FROM classes WHERE id = \(classId)", logger: Self.logger).collect().first)
            #expect(try row.decode((Int, String).self) == (1, "matched"))
        }
        // Paging through the seller's ten matches one at a time, newest first.
        var seen: [Match] = []
        var cursor: PageCursor?
        repeat {
            let page = try await nodes[1].matches(of: seller.id, role: nil, page: PageRequest(limit: 3, after: cursor))
            seen += page.items
            cursor = try page.nextCursor.map { try PageCursor.decode($0, ordering: "matches") }
        } while cursor != nil
        #expect(seen.count == 10 && Set(seen.map(\.id)).count == 10)
        #expect(seen.map(\.id) == seen.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id))
    }

    @Test("reviews: once per member, also when sent twice at once; the grade reaches the reviewee's rating")
    func reviewOnce() async throws {
        let (store, other) = try await Self.openNodes()
        defer { store.close(); other.close() }
        let userRepository = SQLUserRepository(database: store.database)
        let (seller, buyer) = (try await Self.makeUser(userRepository, "seller"), try await Self.makeUser(userRepository, "buyer"))
        let classId = try await Self.insertClass(store, writerId: seller.id, capacity: 2)
        let room = try await SQLChatRepository(database: store.database).openRoom(classId: classId, userId: buyer.id, at: Self.now()).room
        let nodes = [SQLMatchRepository(database: store.database), SQLMatchRepository(database: other.database)]
        let matchId = try await nodes[0].propose(roomId: room.id, by: seller.id, terms: .unspecified, at: Self.now()).match.id
        let accepted = try await nodes[0].apply(.accept, matchId: matchId, by: buyer.id, at: Self.now())
        #expect(accepted.message.seq == 2 && accepted.message.kind == .system)
        await #expect(throws: DomainError.conflict("a match can be reviewed once it is completed")) {
            try await nodes[0].review(matchId: matchId, by: buyer.id, grade: 4, description: "", at: Self.now())
        }
        _ = try await nodes[1].apply(.complete, matchId: matchId, by: seller.id, at: Self.now())

        let outcomes = await withTaskGroup(of: Result<Review, DomainError>.self) { group in
            for node in nodes {
                group.addTask { () -> Result<Review, DomainError> in
                    do { return .success(try await node.review(matchId: matchId, by: buyer.id, grade: 4.5, description: "good", at: Self.now())) }
                    catch let error as DomainError { return .failure(error) }
                    catch { return .failure(.badRequest("\(error)")) }
                }
            }
            return await group.reduce(into: [Result<Review, DomainError>]()) { $0.append($1) }
        }
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(outcomes.contains { $0 == .failure(.conflict("you have already reviewed this match")) })
        await #expect(throws: DomainError.conflict("you have already reviewed this match")) {
            try await nodes[0].review(matchId: matchId, by: buyer.id, grade: 1, description: "", at: Self.now())
        }
        #expect(try await userRepository.user(id: seller.id)?.rating == Rating(average: 4.5, count: 1))
        #expect(try await nodes[1].reviews(of: seller.id, page: PageRequest()).items.map(\.grade) == [4.5])
    }
}
