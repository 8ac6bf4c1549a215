import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// An RFC 9457 problem document, the body of every error response.
public struct Problem: Codable, Sendable, Equatable {
    /// A URI naming the kind of problem.
    public var type: String
    /// A short summary of the kind of problem.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong with this request, safe to show to a client developer.
    public var detail: String?
    /// One entry per invalid field, for validation problems.
    public var errors: [FieldError]?

    /// Creates a problem for `status`, its type and title derived from the status.
    public init(status: HTTPResponse.Status, detail: String?, errors: [FieldError]? = nil) {
        self.type = "https://classtoday.app/problems/\(Self.slug(for: status))"
        self.title = status.reasonPhrase
        self.status = status.code
        self.detail = detail
        self.errors = errors
    }

    /// The answer to a request that is not valid HTTP/1.1 (the parser rejected it).
    static let malformedHTTP = Problem(status: .badRequest, detail: "the request is not valid HTTP/1.1")

    /// The problem+json response, with any extra headers (`Retry-After`, `Allow`).
    public func response(headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        headers.append(contentsOf: extra)
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: jsonBody))
    }

    /// The problem document as JSON bytes.
    var jsonBody: ByteBuffer {
        ByteBuffer(bytes: (try? APIJSONEncoder.encode(self)) ?? Data())
    }

    private static func slug(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "bad-request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not-found"
        case 405: "method-not-allowed"
        case 409: "conflict"
        case 413: "too-large"
        case 415: "unsupported-media-type"
        case 422: "validation"
        case 429: "rate-limited"
        case 503: "unavailable"
        default: status.code >= 500 ? "server-error" : "http-\(status.code)"
        }
    }
}

extension DomainError {
    /// The problem this error is answered with.
    var problem: Problem {
        switch self {
        case .notFound(let what): Problem(status: .notFound, detail: "\(what) not found")
        case .forbidden(let detail): Problem(status: .forbidden, detail: detail)
        case .conflict(let detail): Problem(status: .conflict, detail: detail)
        case .validation(let errors): Problem(status: .unprocessableContent, detail: "some fields are invalid", errors: errors)
        case .unauthorized(let detail): Problem(status: .unauthorized, detail: detail)
        case .badRequest(let detail, let errors): Problem(status: .badRequest, detail: detail, errors: errors.isEmpty ? nil : errors)
        case .unsupportedMediaType(let detail): Problem(status: .unsupportedMediaType, detail: detail)
        case .unavailable(let detail, _): Problem(status: .serviceUnavailable, detail: detail)
        case .tooManyRequests(let detail, _): Problem(status: .tooManyRequests, detail: detail)
        }
    }

    /// The headers the problem response carries besides its content type: `Retry-After` for an unavailable service
    /// or a refused request.
    var headers: HTTPFields {
        switch self {
        case .unavailable(_, let seconds), .tooManyRequests(_, let seconds): [.retryAfter: "\(max(1, seconds))"]
        default: [:]
        }
    }
}
