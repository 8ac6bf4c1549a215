import Testing
@testable import ClassTodayServer

/// Tests for ``SQLStatements``, which PostgreSQL migrations are run through.
@Suite("SQL statement splitting")
struct SQLStatementsTests {
    /// Checks that only top-level semicolons end statements.
    @Test("semicolons in strings, identifiers, comments and dollar quotes do not split")
    func splitting() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE "odd;name" (note text DEFAULT 'a;b''c');
            /* block; comment */ INSERT INTO t VALUES ('x');

            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            -- trailing comment only
            """
        let statements = SQLStatements.split(script)
        #expect(statements.count == 3)
        #expect(statements[0].hasSuffix("CREATE TABLE \"odd;name\" (note text DEFAULT 'a;b''c')"))
        #expect(statements[1] == "/* block; comment */ INSERT INTO t VALUES ('x')")
        #expect(statements[2] == "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql")
        #expect(SQLStatements.split("").isEmpty && SQLStatements.split(" ;; -- x\n").isEmpty)
    }
}
