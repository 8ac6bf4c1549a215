import ClassTodayCore
import Foundation

/// The statement a nearest-first walk reads its cells with by geohash range, written once per walk with marks where a
/// cell's range and the limit go, then bound to each cell's (``bound(to:limit:)``): nothing else differs between the
/// cells, and writing the statement's text for every cell took a third of the search's own time in a served page.
struct RangeCellStatement {
/// The marks written in place of the range's bounds: no geohash starts with a control character.
static let lowerMark = "\u{1}lower", upperMark = "\u{1}upper"
/// The mark written in place of the limit: no limit is negative.
static let limitMark = Int(Int64.min)

/// The statement with its marks.
private let template: SQLStatement
/// The keyword the walk confirms in Swift for these cells.
private let confirmedHere: SearchQuery?
/// The placeholders holding a mark, and which.
private let marks: [(index: Int, mark: Mark)]

private enum Mark {
    case lower, upper, limit
}

/// The walk's statement `template`, written with the marks, and its keyword to confirm in Swift.
init(template: SQLStatement, confirmedHere: SearchQuery?) {
    self.template = template
    self.confirmedHere = confirmedHere
    marks = template.values.enumerated().compactMap { index, value in
        switch value {
        case .text(Self.lowerMark): (index, .lower)
        case .text(Self.upperMark): (index, .upper)
        case .integer(Int64(Self.limitMark)): (index, .limit)
        default: nil
        }
    }
    // A range bound some other way than as its two values would send the marks themselves to the database.
    assert(Set(marks.map(\.mark)).isSuperset(of: [.lower, .upper]), "the walk's cell statement binds no cell range")
}

/// The statement reading `cell`'s range, up to `limit` keys, and the keyword to confirm in Swift.
func bound(to cell: Geohash, limit: Int) -> (SQLStatement, confirmedHere: SearchQuery?) {
    let range = GeohashRange(cell: cell)
    var statement = template
    for (index, mark) in marks {
        switch mark {
        case .lower: statement.rebind(at: index, to: .text(range.lower))
        case .upper: statement.rebind(at: index, to: .text(range.upper))
        case .limit: statement.rebind(at: index, to: .integer(Int64(limit)))
        }
    }
    return (statement, confirmedHere)
}
}
