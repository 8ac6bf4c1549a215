import ClassTodayCore
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

/// SQLite's keyword index built anew in the background (``KeywordIndexBuild``): searches answer from the index in place
/// until the new one is whole, writes made meanwhile land in both, and the new one holds exactly what an index built
/// from scratch over the listings' rows holds.
@Suite("SQLite keyword index built in the background", .serialized, .sqliteOnly)
struct KeywordIndexBuildTests {
    /// The index's options, as migration 0028 creates them.
    static let options = #"content = '', columnsize = 0, detail = column, tokenize = "unicode61 remove_diacritics 0""#

    /// Every (token, listing, column) entry of the FTS5 table `table`, read through its vocabulary.
    static func entries(of table: String, _ store: SQLiteStore) async throws -> Set<String> {
        try await store.writer.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE temp.entries USING fts5vocab(main, \(table), instance)")
            defer { try? db.execute(sql: "DROP TABLE temp.entries") }
            return Set(try Row.fetchAll(db, sql: "SELECT term, doc, col FROM temp.entries").map { row in
                "\(row["term"] as String) \(row["doc"] as Int64) \(row["col"] as String)"
            })
        }
    }

    /// The entries of an index built from scratch over the listings not deleted.
    static func expectedEntries(_ store: SQLiteStore) async throws -> Set<String> {
        try await store.writer.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE reference USING fts5(name, tokens, cells, \(options));
                INSERT INTO reference (rowid, name, tokens, cells)
                SELECT rowid, \(KeywordIndexTriggers.values(of: "classes")) FROM classes WHERE deleted_at IS NULL
                """)
        }
        let entries = try await entries(of: "reference", store)
        try await store.writer.write { db in try db.execute(sql: "DROP TABLE reference") }
        return entries
    }

    /// The names of the listings `text` finds by relevance, by recency and nearest first within 50 km.
    static func found(_ client: any TestClientProtocol, _ text: String) async throws -> [Set<String>] {
        try await KoreanSearchTests.found(client, text)
    }

    /// Creates the listings of ``KoreanSearchTests/names`` near (37.48, 126.93) and returns their ids by name and the
    /// writer's token.
    static func seed(_ client: any TestClientProtocol) async throws -> (ids: [String: String], token: String) {
        let (token, _) = try await client.signup()
        var ids: [String: String] = [:]
        for name in KoreanSearchTests.names {
            let created = try await client.createClass(token: token, ["name": name, "description": "", "location": ["lat": 37.48, "lon": 126.93]])
            ids[name] = try #require(created["id"] as? String)
        }
        return (ids, token)
    }

    /// Steps `build` until it replaced the index, and returns how many steps built a batch.
    static func finish(_ build: KeywordIndexBuild) async throws -> Int {
        var batches = 0
        while case .built = try await build.step() { batches += 1 }
        return batches
    }

    /// Renames the listing `id`, deletes the listing `deleted` and creates one named `created`, as a writer does
    /// while a build runs.
    static func write(_ client: any TestClientProtocol, token: String, renaming id: String, to name: String, deleting deleted: String,
                      creating created: String) async throws {
        #expect(try await client.send(.patch, "/v1/classes/\(id)", json: ["name": name], token: token).status == .ok)
        #expect(try await client.send(.delete, "/v1/classes/\(deleted)", token: token).status == .noContent)
        _ = try await client.createClass(token: token, ["name": created, "description": "", "location": ["lat": 37.48, "lon": 126.93]])
    }

    @Test("a new index is built in batches while searches read the old one, takes in the writes made meanwhile, and replaces it")
    func rebuild() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            guard case .sqlite(let store) = environment.storage else {
                Issue.record("the environment is not on SQLite")
                return
            }
            let (ids, token) = try await Self.seed(client)
            #expect(try await Self.entries(of: "class_search", store) == Self.expectedEntries(store), "the triggers keep the index")

            // What the migration of a new index version does.
            try await store.writer.write { db in
                try db.execute(sql: """
                    CREATE VIRTUAL TABLE class_search_next USING fts5(name, tokens, cells, \(Self.options));
                    INSERT INTO keyword_index_build (id, built_through) VALUES (1, -9223372036854775808)
                    """)
            }
            let build = KeywordIndexBuild(pool: store.writer, batchSize: 2)
            #expect(try await build.step() == .built(2))
            #expect(try await build.progress() == KeywordIndexBuild.Progress(built: 2, remaining: 5))
            #expect(try await Self.found(client, "ㅅㅎ") == Array(repeating: ["수학 과외", "실험 교실"], count: 3))

            // The first two listings are in the new index already; the new one is not yet.
            try await Self.write(client, token: token, renaming: try #require(ids["수학 과외"]), to: "물리 과외",
                                 deleting: try #require(ids["실험 교실"]), creating: "수학 캠프")
            #expect(try await Self.found(client, "ㅅㅎ") == Array(repeating: ["수학 캠프"], count: 3), "the old index took the writes")
            #expect(try await Self.finish(build) == 3)
            #expect(try await build.progress() == nil)
            #expect(try await build.step() == .idle)

            #expect(try await Self.entries(of: "class_search", store) == Self.expectedEntries(store))
            #expect(try await Self.found(client, "ㅅㅎ") == Array(repeating: ["수학 캠프"], count: 3))
            #expect(try await Self.found(client, "물리") == Array(repeating: ["물리 과외"], count: 3))
            let triggers = try await store.writer.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name GLOB 'classes_keywords_*' ORDER BY name")
            }
            #expect(triggers == ["deleted", "inserted", "reindexed", "unindexed"].map { "classes_keywords_class_search_\($0)" })

            try await Self.write(client, token: token, renaming: try #require(ids["기타 레슨"]), to: "기타 합주",
                                 deleting: try #require(ids["Guitar 101"]), creating: "Guitar 201")
            #expect(try await Self.entries(of: "class_search", store) == Self.expectedEntries(store), "the new index's triggers keep it")
            #expect(try await Self.found(client, "gui") == Array(repeating: ["Guitar 201"], count: 3))
        }
    }

    @Test("migration 0028 builds the contentless index beside the one holding its text, which searches read until it is whole")
    func contentlessMigration() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            guard case .sqlite(let store) = environment.storage else {
                Issue.record("the environment is not on SQLite")
                return
            }
            let (ids, token) = try await Self.seed(client)
            // The index as it was before migration 0028: its text kept, no triggers, nothing to build.
            try await store.writer.write { db in
                for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name GLOB 'classes_keywords_*'") {
                    try db.execute(sql: "DROP TRIGGER \(trigger)")
                }
                try db.execute(sql: """
                    DROP TABLE class_search;
                    DROP TABLE keyword_index_build;
                    CREATE VIRTUAL TABLE class_search USING fts5(name, tokens, cells, tokenize = "unicode61 remove_diacritics 0");
                    INSERT INTO class_search (rowid, name, tokens, cells)
                    SELECT rowid, \(KeywordIndexTriggers.values(of: "classes")) FROM classes WHERE deleted_at IS NULL;
                    """)
            }
            let migration = try #require(try Migration.load(from: TestServer.migrationsDirectory + "/sqlite").first { $0.version == "0028" })
            try await store.writer.write { db in try db.execute(sql: migration.sql) }

            let build = KeywordIndexBuild(pool: store.writer, batchSize: 3)
            #expect(try await build.step() == .built(3))
            try await Self.write(client, token: token, renaming: try #require(ids["수학 과외"]), to: "물리 과외",
                                 deleting: try #require(ids["실험 교실"]), creating: "수학 캠프")
            #expect(try await Self.found(client, "ㅅㅎ") == Array(repeating: ["수학 캠프"], count: 3))
            #expect(try await Self.entries(of: "class_search", store) == Self.expectedEntries(store), "the old index took the writes")
            #expect(try await Self.finish(build) == 2)

            let table = try await store.writer.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'class_search'") }
            #expect(table?.contains("content = ''") == true)
            #expect(try await Self.entries(of: "class_search", store) == Self.expectedEntries(store))
            #expect(try await Self.found(client, "ㅅㅎ") == Array(repeating: ["수학 캠프"], count: 3))
            #expect(try await Self.found(client, "물리") == Array(repeating: ["물리 과외"], count: 3))
        }
    }
}
