import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOFoundationCompat

/// `{"items": [...], "nextCursor": "..." | null}` with a `Link: <...>; rel="next"` header when there is a next page.
struct PageResponse<Item: Encodable & Sendable>: ResponseGenerator, Encodable, Sendable {
    let items: [Item]
    @Nullable var nextCursor: String?
    /// The request's path and query, to build the next link from.
    let requestURI: URI

    private enum CodingKeys: String, CodingKey { case items, nextCursor }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try APIJSONEncoder.response(body: body())
        if let nextCursor {
            response.headers[.link] = "<\(Self.link(replacingCursorOf: requestURI, with: nextCursor))>; rel=\"next\""
        }
        return response
    }

    /// The JSON body: by hand when the items write their own JSON (class pages, most of what the search screen waits
    /// for), else `APIJSONEncoder`'s; the bytes are the same.
    func body() throws -> ByteBuffer {
        guard Item.self is any JSONTextRepresentable.Type, let items = items as? [any JSONTextRepresentable] else {
            return ByteBuffer(data: try APIJSONEncoder.encode(self))
        }
        // A class object is about a kilobyte: one buffer for the page, its objects written in place.
        var page = JSONObjectWriter(capacity: 256 + items.count * 1_024)
        page.add("items", objects: items) { object, item in item.writeFields(to: &object) }
        page.add("nextCursor", nextCursor)
        return ByteBuffer(bytes: page.finishBytes())
    }

    /// The request's path and query with `cursor` set to `cursor` (and any `before` dropped).
    static func link(replacingCursorOf uri: URI, with cursor: String) -> String {
        var components = URLComponents()
        components.path = uri.path
        var items = uri.queryParameters.filter { $0.key != "cursor" && $0.key != "before" }
            .map { URLQueryItem(name: String($0.key), value: String($0.value)) }
        items.append(URLQueryItem(name: "cursor", value: cursor))
        components.queryItems = items
        return components.string ?? uri.path
    }
}

extension PageRequest {
    /// Reads `limit` (1 to 100, default 20) and `cursor` from the query; bad values are 422s naming the parameter.
    init(query: URI, ordering: String) throws {
        var validator = FieldValidator()
        var limit = PageRequest.defaultLimit
        if let text = query.queryParameters.get("limit") {
            if let value = QueryValue.integer(text), (1...PageRequest.maximumLimit).contains(value) {
                limit = value
            } else {
                validator.fail("limit", "must be a whole number from 1 to \(PageRequest.maximumLimit)")
            }
        }
        try validator.throwIfInvalid()
        let cursor = try query.queryParameters.get("cursor").map { try PageCursor.decode($0, ordering: ordering) }
        self.init(limit: limit, after: cursor)
    }
}

extension Page where Item == ClassView {
    /// The page as a response body of class objects.
    func response(for request: Request) -> PageResponse<ClassPageItem> {
        response(uri: request.uri)
    }

    /// The JSON body `GET /v1/classes` answers this page with (the class objects, written as the route writes them), for
    /// the search benchmark's profile of a page.
    package func responseBody(uri: String) throws -> ByteBuffer {
        try response(uri: URI(uri)).body()
    }

    private func response(uri: URI) -> PageResponse<ClassPageItem> {
        PageResponse(items: items.map(ClassPageItem.init(view:)), nextCursor: nextCursor, requestURI: uri)
    }
}
