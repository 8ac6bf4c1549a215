import Foundation
import Logging
import Testing
@testable import ClassTodayServer

/// Repeated statements (``SQLStatement/isRepeated``) run prepared on PostgreSQL: their rows must read back exactly as
/// an unnamed statement's, value types included, on every connection of the pool and past the per-connection limit.
/// Runs only when `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("PostgreSQL prepared statements", .postgresOnly)
struct PostgresPreparedStatementTests {
    static let logger = Logger(label: "test.postgres-prepared")

    /// A statement selecting one value of each kind the seam reads, from its bound values.
    static func statement(_ number: Int, _ text: String?, repeated: Bool) -> SQLStatement {
        var statement: SQLStatement = """
            SELECT \(Int64(number)) AS number, \(Double(number) / 4) AS real, \(text) AS text, \(Int64(number)) > 2 AS flag,
                \(raw: "\(number % 40)") AS variant
            """
        statement.isRepeated = repeated
        return statement
    }

    @Test("each type the seam reads comes back as its value, prepared or not; a tsvector reads as NULL")
    func everyType() async throws {
        let url = try #require(try PostgresTestDatabase.freshURL())
        let store = try PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        let expected: [(column: String, sql: String, value: SQLValue)] = [
            ("small", "(-7)::int2", .integer(-7)), ("regular", "(-70000)::int4", .integer(-70_000)),
            ("big", "(-9000000000)::int8", .integer(-9_000_000_000)), ("single", "(-1.5)::float4", .real(-1.5)),
            ("double", "(-2.25)::float8", .real(-2.25)), ("decimal", "(12.75)::numeric", .real(12.75)),
            ("yes", "true", .integer(1)), ("no", "false", .integer(0)), ("text", "'수학 \\ math'::text", .text("수학 \\ math")),
            ("varchar", "'기타'::varchar", .text("기타")), ("name", "'relname'::name", .text("relname")),
            ("bpchar", "'ab'::char(3)", .text("ab ")), ("json", "'[\"a\", 1]'::json", .text("[\"a\", 1]")),
            ("jsonb", "'{\"a\": [1, \"가\"]}'::jsonb", .text("{\"a\": [1, \"가\"]}")),
            ("vector", "to_tsvector('simple', 'guitar')", .null), ("empty", "''::text", .text("")), ("missing", "NULL::int8", .null),
        ]
        for repeated in [false, true] {
            var statement = SQLStatement(stringLiteral: "SELECT " + expected.map { "\($0.sql) AS \($0.column)" }.joined(separator: ", "))
            statement.isRepeated = repeated
            for _ in 0..<2 {
                let row = try #require(try await store.database.rows(statement).first)
                for (column, _, value) in expected {
                    #expect(try row.value(column) == value, "\(column), repeated: \(repeated)")
                }
            }
        }
    }

    @Test("a repeated statement reads the same rows as an unnamed one: integers, reals, text, NULL and booleans, across more texts than a connection keeps")
    func sameRowsAsUnnamed() async throws {
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        let store = try PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        // 40 distinct texts (more than PreparedStatements.perConnection), each run several times, concurrently over the pool.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<200 {
                group.addTask {
                    let text: String? = number % 3 == 0 ? nil : "값 \(number) 'quoted'"
                    let prepared = try await store.database.rows(Self.statement(number, text, repeated: true))
                    let unnamed = try await store.database.rows(Self.statement(number, text, repeated: false))
                    #expect(prepared.count == 1)
                    for column in ["number", "real", "text", "flag", "variant"] {
                        #expect(try prepared.first?.value(column) == unnamed.first?.value(column), "\(column) of \(number)")
                    }
                    #expect(try prepared.first?["number"] as Int64? == Int64(number))
                    #expect(try prepared.first?["real"] as Double? == Double(number) / 4)
                    #expect(try prepared.first?["flag"] as Bool? == (number > 2))
                    #expect(try prepared.first?.value("text") == (text.map(SQLValue.text) ?? .null))
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("the server's connections run without JIT; a walk plans its cell statements once for the rest of its read, not for the next read")
    func planSettings() async throws {
        let url = try #require(try await PostgresTestDatabase.freshMigratedURL())
        let store = try PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        let setting = { (db: any SQLExecutor) async throws -> String? in
            try await db.rows("SELECT current_setting('plan_cache_mode') AS plans").first?["plans"]
        }
        #expect(try await store.database.rows("SELECT current_setting('jit') AS jit").first?["jit"] as String? == "off")
        let (before, during) = try await store.database.read { db in
            let before = try await setting(db)
            try await TSVectorClassIndex().prepareWalk(db)
            return (before, try await setting(db))
        }
        #expect(before == "auto")
        #expect(during == "force_generic_plan")
        #expect(try await setting(store.database) == "auto")
    }
}
