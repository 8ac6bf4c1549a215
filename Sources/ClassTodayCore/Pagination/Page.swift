import Foundation

/// One page of a list and the cursor of the next, if there is one.
public struct Page<Item: Sendable>: Sendable {
    /// The items of this page, in list order.
    public let items: [Item]
    /// The opaque cursor that continues after the last item, nil on the last page.
    public let nextCursor: String?

    /// Creates a page.
    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The page with its items transformed.
    public func map<Other: Sendable>(_ transform: (Item) throws -> Other) rethrows -> Page<Other> {
        Page<Other>(items: try items.map(transform), nextCursor: nextCursor)
    }
}

/// Which page of a list to read: how many items and where to start.
public struct PageRequest: Sendable, Hashable {
    /// The default page size.
    public static let defaultLimit = 20
    /// The largest page size.
    public static let maximumLimit = 100

    /// How many items at most.
    public let limit: Int
    /// The keyset position to continue after, decoded from the client's cursor.
    public let after: PageCursor?

    /// Creates a request.
    public init(limit: Int = PageRequest.defaultLimit, after: PageCursor? = nil) {
        self.limit = limit
        self.after = after
    }
}

/// A keyset position in a sorted list: the sort values of the last item seen, opaque to clients.
///
/// Encoded as base64url JSON; a cursor carries the name of the ordering it belongs to, so that a cursor of one
/// list or sort is refused by another rather than silently skipping items.
public struct PageCursor: Sendable, Hashable, Codable {
    /// The ordering the cursor belongs to (`recent`, `favorites`, `distance`, ...).
    public let ordering: String
    /// The last item's sort values, most significant first, ending with its id.
    public let values: [PageCursorValue]

    /// Creates a cursor.
    public init(ordering: String, values: [PageCursorValue]) {
        self.ordering = ordering
        self.values = values
    }

    /// The text handed to clients: base64url of the JSON that ``decode(_:ordering:)`` reads (as `JSONEncoder` writes
    /// it, but written here: `JSONEncoder` was a twentieth of a circle page's time), or empty when a value is not a
    /// finite number.
    public var encoded: String {
        var json = Array(#"{"ordering":"#.utf8)
        JSONString.append(ordering, to: &json)
        json += #","values":["#.utf8
        for (index, value) in values.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            switch value {
            case .int(let integer):
                json += #"{"int":{"_0":\#(integer)}}"#.utf8
            case .double(let double):
                guard double.isFinite else { return "" }
                json += #"{"double":{"_0":\#(double)}}"#.utf8
            case .string(let string):
                json += #"{"string":{"_0":"#.utf8
                JSONString.append(string, to: &json)
                json += "}}".utf8
            }
        }
        json += "]}".utf8
        return Data(json).base64URLEncoded
    }

    /// Decodes a client's cursor for `ordering`; throws a 422 naming `cursor` when it is not one of ours.
    public static func decode(_ text: String, ordering: String) throws(DomainError) -> PageCursor {
        guard text.utf8.count <= 1024, let data = Data(base64URLEncoded: text),
              let cursor = try? JSONDecoder().decode(PageCursor.self, from: data), cursor.ordering == ordering
        else { throw DomainError.invalid("cursor", "is not a cursor of this list; start again without it") }
        return cursor
    }
}

/// One sort value inside a ``PageCursor``.
public enum PageCursorValue: Sendable, Hashable, Codable {
    case int(Int64)
    case double(Double)
    case string(String)

    /// The integer, if this is one.
    public var int: Int64? { if case .int(let value) = self { value } else { nil } }
    /// The number, if this is one.
    public var double: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        case .string: nil
        }
    }
    /// The string, if this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
}
