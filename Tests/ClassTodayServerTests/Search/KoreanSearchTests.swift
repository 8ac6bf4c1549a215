import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

/// Initial-consonant search and one-jamo typos through the API, on both backends, and the background upgrade of
/// listings indexed before initial consonants were.
@Suite("Korean initial consonants and typos over HTTP")
struct KoreanSearchTests {
    static let names = ["수학 과외", "실험 교실", "기타 레슨", "피아노 입문", "바리스타 자격증", "수영 강습", "Guitar 101"]

    /// The names of the listings `query` finds, by relevance, by recency and nearest first within 50 km.
    static func found(_ client: any TestClientProtocol, _ text: String) async throws -> [Set<String>] {
        let q = try #require(text.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        var results: [Set<String>] = []
        for extra in ["", "&sort=recent", "&lat=37.48&lon=126.93&radius=50000"] {
            let response = try await client.send(.get, "/v1/classes?q=\(q)\(extra)")
            #expect(response.status == .ok)
            let items = try #require(try response.jsonObject()["items"] as? [[String: Any]])
            results.append(Set(items.compactMap { $0["name"] as? String }))
        }
        return results
    }

    /// Creates the listings of ``names`` near (37.48, 126.93).
    static func seed(_ client: any TestClientProtocol) async throws {
        let (token, _) = try await client.signup()
        for name in names {
            _ = try await client.createClass(token: token, ["name": name, "description": "", "location": ["lat": 37.48, "lon": 126.93]])
        }
    }

    @Test("initial consonants, mixed with syllables or not, and typos find the same classes on every sort", arguments: [
        ("ㅅㅎ", ["수학 과외", "실험 교실"]), ("ㄱㅌ", ["기타 레슨"]), ("수ㅎ", ["수학 과외"]), ("ㅍㅇㄴ", ["피아노 입문"]),
        ("ㅂㄹㅅㅌ ㅈㄱ", ["바리스타 자격증"]), ("피아너", ["피아노 입문"]), ("바리스터", ["바리스타 자격증"]),
        ("ㅅ", []), ("수엉", []), ("ㅅㅇ ㄱㅅ", ["수영 강습"]), ("ㄱㅌ gui", []),
    ])
    func initialsAndTypos(query: String, expected: [String]) async throws {
        try await TestServer.withRouter { client in
            try await Self.seed(client)
            for result in try await Self.found(client, query) {
                #expect(result == Set(expected), "\(query)")
            }
        }
    }

    @Test("a typo finds listings whose misspelt bigrams were new when they were created or edited, not those holding the word's syllables apart, also once the bigrams are read again from the index as the migration does")
    func typoBigrams() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let (token, _) = try await client.signup()
            let place: [String: Any] = ["lat": 37.48, "lon": 126.93]
            _ = try await client.createClass(token: token, ["name": "경험 없는 분 환영", "description": "말씀 주세요", "location": place])
            #expect(try await Self.found(client, "없는말") == [[], [], []])

            _ = try await client.createClass(token: token, ["name": "없는맘 카페", "description": "", "location": place])
            let edited = try #require(try await client.createClass(token: token, ["name": "요가 교실", "description": "", "location": place])["id"] as? String)
            let renamed = try await client.send(.patch, "/v1/classes/\(edited)", json: ["name": "없눈말 모임"], token: token)
            #expect(renamed.status == .ok)
            let expected: Set<String> = ["없는맘 카페", "없눈말 모임"]
            #expect(try await Self.found(client, "없는말") == [expected, expected, expected])

            let database = environment.storage.database
            let backend = database.dialect.backend == .postgres ? "postgres" : "sqlite"
            let migration = try #require(try Migration.load(from: TestServer.migrationsDirectory + "/" + backend).first { $0.name == "keyword_bigrams" })
            try await database.transaction { db in
                try await db.execute("DROP TABLE keyword_bigrams")
                for statement in SQLStatements.split(migration.sql) { try await db.execute(SQLStatement(sql: statement)) }
            }
            #expect(try await database.row("SELECT COUNT(*) AS n FROM keyword_bigrams WHERE bigram IN ('는맘', '없눈', '눈말')")?["n"] == 3)
            #expect(try await Self.found(client, "없는말") == [expected, expected, expected])
        }
    }

    /// PostgreSQL's: SQLite builds a new index of a new version beside the old one instead (``KeywordIndexBuildTests``).
    @Test("listings indexed before initial consonants are re-indexed in the background, in batches, then never again",
          .postgresOnly)
    func upgrade() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            try await Self.seed(client)
            // What a database of the previous version holds: no tokens for the listings yet, version 1.
            let database = environment.storage.database
            try await database.transaction { db in
                for id: String in try await db.rows("SELECT id FROM classes").map({ try $0["id"] }) {
                    try await db.dialect.classIndex.remove(classId: id, db)
                }
                try await db.execute("UPDATE search_index_state SET version = 1, reindexed_through = ''")
            }
            #expect(try await Self.found(client, "ㅅㅎ") == [[], [], []])

            #expect(try await environment.classes.upgradeKeywordIndex(batchSize: 3) == 3)
            #expect(try await database.row("SELECT version FROM search_index_state")?["version"] == 1)
            let upgrade = KeywordIndexUpgrade(classes: environment.classes, logger: Logger(label: "test"))
            #expect(try await upgrade.upgrade() == Self.names.count - 3)
            #expect(try await database.row("SELECT version FROM search_index_state")?["version"] == SearchTokenizer.indexVersion)
            #expect(try await Self.found(client, "ㅅㅎ") == Array(repeating: ["수학 과외", "실험 교실"], count: 3))
            #expect(try await Self.found(client, "gui") == Array(repeating: ["Guitar 101"], count: 3))
            #expect(try await upgrade.upgrade() == 0, "an index up to date is left alone")
        }
    }
}
