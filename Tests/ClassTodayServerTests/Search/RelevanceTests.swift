import ClassTodayCore
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

/// Relevance order through the API on both backends (name hits first, each tier newest first, pages that cross from
/// one tier to the next), and the SQLite migration that renumbers listings and rebuilds the keyword index for it.
@Suite("Relevance order")
struct RelevanceTests {
    /// Listings created one after another, oldest first: (name, description).
    static let listings = [
        ("수학 과외", "중학생 대상"),
        ("피아노 레슨", "수학도 같이 봐 드려요"),
        ("고등 수학", "내신 대비"),
        ("영어 회화", "수학 말고 영어"),
        ("요가", "아침 요가"),
        ("수학여행 사진", "사진 모임"),
    ]

    /// Creates ``listings`` in order, a few milliseconds apart so that each is newer than the one before.
    static func seed(_ client: any TestClientProtocol) async throws {
        let (token, _) = try await client.signup()
        for (name, description) in listings {
            _ = try await client.createClass(token: token, ["name": name, "description": description])
            try await Task.sleep(for: .milliseconds(3))
        }
    }

    /// The names of every page of `query`, `limit` per page, in order.
    static func names(_ client: any TestClientProtocol, _ query: String, limit: Int) async throws -> [String] {
        let q = try #require(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        var names: [String] = []
        var cursor: String?
        repeat {
            let response = try await client.send(.get, "/v1/classes?q=\(q)&limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(response.status == .ok)
            let body = try response.jsonObject()
            names += try #require(body["items"] as? [[String: Any]]).compactMap { $0["name"] as? String }
            cursor = body["nextCursor"] as? String
        } while cursor != nil && names.count <= listings.count
        return names
    }

    @Test("names that hold the keyword come first, newest first, then descriptions that hold it, newest first; pages cross tiers cleanly",
          arguments: [1, 2, 3, 20])
    func nameHitsFirst(limit: Int) async throws {
        try await TestServer.withRouter { client in
            try await Self.seed(client)
            #expect(try await Self.names(client, "수학", limit: limit) == ["수학여행 사진", "고등 수학", "수학 과외", "영어 회화", "피아노 레슨"])
            // A three-syllable run, confirmed in Swift, on the name alone for the first tier.
            #expect(try await Self.names(client, "수학여", limit: limit) == ["수학여행 사진"])
            #expect(try await Self.names(client, "요가", limit: limit) == ["요가"])
            #expect(try await Self.names(client, "ㅅㅎ", limit: limit) == ["수학여행 사진", "고등 수학", "수학 과외", "영어 회화", "피아노 레슨"])
        }
    }

    @Test("a keyword within a district follows the listing when its district changes")
    func districtChange() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let created = try await client.createClass(token: token, ["name": "수학 과외", "keywordLocation": "관악구"])
            let id = try #require(created["id"] as? String)
            func names(in district: String) async throws -> [String] {
                let path = "/v1/classes?q=%EC%88%98%ED%95%99&keywordLocation=" + district.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let items = try #require(try await client.send(.get, path).jsonObject()["items"] as? [[String: Any]])
                return items.compactMap { $0["name"] as? String }
            }
            #expect(try await names(in: "관악구") == ["수학 과외"])
            let patched = try await client.send(.patch, "/v1/classes/\(id)", json: ["keywordLocation": "강남구"], token: token)
            #expect(patched.status == .ok)
            #expect(try await names(in: "관악구") == [])
            #expect(try await names(in: "강남구") == ["수학 과외"])
            // A district is matched whole, spaces and quotes included (one lexeme on PostgreSQL).
            let odd = "서울 O'Neil \\구"
            #expect(try await client.send(.patch, "/v1/classes/\(id)", json: ["keywordLocation": odd], token: token).status == .ok)
            #expect(try await names(in: odd) == ["수학 과외"])
            #expect(try await names(in: "서울") == [])
            #expect(try await names(in: "강남구") == [])
        }
    }

    @Test("a relevance cursor of the older ranking starts the list again instead of failing")
    func olderCursor() async throws {
        try await TestServer.withRouter { client in
            try await Self.seed(client)
            let old = PageCursor(ordering: "relevance", values: [.double(-1.5), .string("01J0000000000000000000000")]).encoded
            let response = try await client.send(.get, "/v1/classes?q=%EC%88%98%ED%95%99&limit=2&cursor=\(old)")
            #expect(response.status == .ok)
            let items = try #require(try response.jsonObject()["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["name"] as? String } == ["수학여행 사진", "고등 수학"])
        }
    }

    @Test("the SQLite migration renumbers existing listings by creation time and indexes their names apart")
    func sqliteMigration() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-relevance-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteStore.open(path: folder + "/db.sqlite", durableCommits: false)
        let migrations = try Migration.load(from: TestServer.migrationsDirectory + "/sqlite")
        let logger = Logger(label: "test")
        _ = try await store.migrate(migrations.filter { Int($0.version)! < 16 }, logger: logger)
        // Listings as the previous schema stored them: rowids in insertion order, not creation order, and two created in
        // the same millisecond.
        let base: Int64 = 1_790_000_000_000
        let rows: [(id: String, name: String, createdAt: Int64)] = [
            ("A", "수학 과외", base + 5), ("C", "기타 수학", base), ("B", "수학 기초", base), ("D", "영어", base + 9),
        ]
        // The writer as the schema of then stores a user (today's repository writes columns added later).
        let writer = "W"
        try await store.database.execute("""
            INSERT INTO users (id, email, email_normalized, password_hash, nickname, created_at, updated_at)
            VALUES (\(writer), 'writer@example.com', 'writer@example.com', 'x', 'writer', \(base), \(base))
            """)
        try await store.writer.write { db in
            for row in rows {
                try db.execute(sql: """
                    INSERT INTO classes (id, type, name, description, price_unit, writer_id, created_at, updated_at)
                    VALUES (?, 'sell', ?, '수학 설명', 'perHour', ?, ?, ?)
                    """, arguments: [row.id, row.name, writer, row.createdAt, row.createdAt])
                try db.execute(sql: "INSERT INTO class_search (rowid, tokens, cells) SELECT rowid, ct_search_tokens(name, description), '' FROM classes WHERE id = ?",
                               arguments: [row.id])
            }
        }
        _ = try await store.migrate(migrations, logger: logger)
        let rowids = try await store.writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, rowid FROM classes").map { (($0["id"] as String), ($0["rowid"] as Int64)) })
        }
        #expect(rowids == ["A": (base + 5) << 10, "B": base << 10, "C": (base << 10) + 1, "D": (base + 9) << 10])
        #expect(try await store.database.row("SELECT version FROM search_index_state")?["version"] == SearchTokenizer.indexVersion)

        let repository = SQLClassRepository(database: store.database)
        var search = ClassSearch()
        search.keyword = SearchTokenizer.query("수학")
        search.sort = .relevance
        search.status = nil
        let page = try await repository.search(search, viewerId: nil, page: PageRequest(limit: 10))
        #expect(page.items.map(\.listing.id) == ["A", "C", "B", "D"])

        // A listing created afterwards in the same millisecond as B and C takes the next rowid of that millisecond.
        let createdAt = Date(millisecondsSince1970: base)
        _ = try await repository.create(ClassListing(
            id: "E", type: .sell, name: "수학 문제 풀이", description: "", days: [], time: nil, place: nil, location: nil,
            keywordLocation: nil, price: nil, priceUnit: .perHour, subjects: [], targets: [], capacity: 1, status: .open, imageIds: [],
            writerId: writer, favoriteCount: 0, createdAt: createdAt, updatedAt: createdAt))
        #expect(try await store.database.row("SELECT rowid FROM classes WHERE id = 'E'")?["rowid"] == (base << 10) + 2)
        #expect(try await repository.search(search, viewerId: nil, page: PageRequest(limit: 10)).items.map(\.listing.id) == ["A", "E", "C", "B", "D"])
    }
}
