import Testing
@testable import ClassTodayServer

/// Reading a row's columns in order (``SQLRowReader``) gives what reading them by name gives, whatever order the
/// statement selected them in.
@Suite("Rows read in column order")
struct SQLRowReaderTests {
    static func row(_ columns: [(String, SQLValue)]) -> SQLRow {
        SQLRow(columns: SQLColumns(columns.map(\.0)), values: columns.map(\.1))
    }

    @Test("columns read in the order selected, or in another, give the values read by name")
    func anyOrder() throws {
        let selected: [(String, SQLValue)] = [("id", .text("a")), ("price", .integer(5)), ("lat", .real(37.5)), ("time", .null)]
        for columns in [selected, selected.reversed(), [selected[2], selected[0], selected[3], selected[1]]] {
            var reader = SQLRowReader(Self.row(columns))
            let (id, price, lat, time): (String, Int, Double, String?) =
                (try reader.read("id"), try reader.read("price"), try reader.read("lat"), try reader.read("time"))
            #expect(id == "a" && price == 5 && lat == 37.5 && time == nil)
        }
    }

    @Test("a missing column or a value of another type throws, naming the column; an unselected optional one is nil")
    func missingAndMistyped() throws {
        var reader = SQLRowReader(Self.row([("id", .text("a")), ("price", .text("five"))]))
        #expect(throws: SQLDecodingError.self) { let _: String = try reader.read("name") }
        #expect(throws: SQLDecodingError.self) { let _: Int = try reader.read("price") }
        #expect(try reader.readIfSelected("hidden_at") as Int64?? == nil)
        #expect(try reader.read("id") as String == "a")
    }
}
