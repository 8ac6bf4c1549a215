import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// A word typed in part finds the listings holding the words it starts, through the index's vocabulary of words
/// (``KeywordVocabulary``), on both backends.
@Suite("Word prefixes over HTTP")
struct WordPrefixTests {
    /// Nine words starting with `e`: one more than a prefix may name.
    static let eWords = ["easy", "eager", "early", "earth", "east", "echo", "edge", "edit", "egg"]

    @Test("a prefix names the words it starts as listings add and edit them, finds what brute force finds on every sort, keeps the prefix past eight words, finds no Hangul name for `q`, and the migration reads the same words back from the index")
    func prefixesNamed() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let (token, _) = try await client.signup()
            let place: [String: Any] = ["lat": 37.48, "lon": 126.93]
            var names = ["JLPT N1 대비", "jlptn2 모의고사", "Guitar 101", "guitarist 모임", "영어 " + Self.eWords.joined(separator: " "), "English 회화"]
            for name in names {
                _ = try await client.createClass(token: token, ["name": name, "description": "", "location": place])
            }
            let edited = try #require(try await client.createClass(token: token, ["name": "요가 교실", "description": "", "location": place])["id"] as? String)
            let database = environment.storage.database

            /// The query `text` narrowed by the vocabulary, as a tsquery.
            func narrowed(_ text: String) async throws -> String? {
                try await KeywordVocabulary.narrowing(try #require(SearchTokenizer.query(text)), database)?.tsQuery
            }
            #expect(try await narrowed("jl") == "(('jlpt') | ('jlptn2'))")
            #expect(try await narrowed("gui 모임") == "(('guitar') | ('guitarist')) & '모임'")
            #expect(try await narrowed("e") == "'e':*", "nine words and more")
            #expect(try await narrowed("ea") == "(('eager') | ('early') | ('earth') | ('east') | ('easy'))")
            #expect(try await narrowed("zz") == "'zz':*", "no word")

            let renamed = try await client.send(.patch, "/v1/classes/\(edited)", json: ["name": "jlptn3 특강"], token: token)
            #expect(renamed.status == .ok)
            names.append("jlptn3 특강")
            #expect(try await narrowed("jl") == "(('jlpt') | ('jlptn2') | ('jlptn3'))", "an edit adds its words")

            for (query, expected) in [("jl", ["JLPT N1 대비", "jlptn2 모의고사", "jlptn3 특강"]), ("gui", ["Guitar 101", "guitarist 모임"]),
                                      ("e", ["영어 " + Self.eWords.joined(separator: " "), "English 회화"]), ("eg", ["영어 " + Self.eWords.joined(separator: " ")]),
                                      ("jlptn", ["jlptn2 모의고사", "jlptn3 특강"]), ("zz", []),
                                      // `q` and `qx03` start the escaped initials of the Hangul names, but no word.
                                      ("q", []), ("qx03", [])] {
                let keyword = try #require(SearchTokenizer.query(query))
                #expect(Set(expected) == Set(names.filter(keyword.matches)), "brute force: \(query)")
                for result in try await KoreanSearchTests.found(client, query) {
                    #expect(result == Set(expected), "\(query)")
                }
            }

            let backend = database.dialect.backend == .postgres ? "postgres" : "sqlite"
            let migration = try #require(try Migration.load(from: TestServer.migrationsDirectory + "/" + backend).first { $0.name == "keyword_words" })
            let recorded: [String] = try await database.rows("SELECT word FROM keyword_words ORDER BY word").map { try $0["word"] }
            try await database.transaction { db in
                try await db.execute("DROP TABLE keyword_words")
                for statement in SQLStatements.split(migration.sql) { try await db.execute(SQLStatement(sql: statement)) }
            }
            let read: [String] = try await database.rows("SELECT word FROM keyword_words ORDER BY word").map { try $0["word"] }
            #expect(read == recorded, "\(read) against \(recorded)")
            #expect(["101", "egg", "english", "jlpt", "jlptn3", "n1"].allSatisfy(read.contains), "\(read)")
        }
    }
}
