/// One invalid field of a request, reported to the client as an entry of the problem's `errors` list.
public struct FieldError: Sendable, Hashable, Codable {
    /// The field's name as the client sent it (`price`, `location.lat`, `days[2]`).
    public let field: String
    /// What is wrong with it, in words a client developer can act on.
    public let message: String

    /// Creates a field error.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// The small set of errors the domain throws; the server maps each case to one HTTP status.
public enum DomainError: Error, Sendable, Equatable {
    /// The resource does not exist (or is invisible to the caller). 404.
    case notFound(String)
    /// The caller may not do this to a resource that exists. 403.
    case forbidden(String)
    /// The request conflicts with the current state (duplicate, illegal transition). 409.
    case conflict(String)
    /// One or more fields are semantically invalid. 422.
    case validation([FieldError])
    /// Missing, invalid, expired or revoked credentials. 401.
    case unauthorized(String)
    /// The request body could not be read as the expected document (malformed JSON, wrong type). 400, with an
    /// entry in `errors` for each field whose value has the wrong type or does not fit it.
    case badRequest(String, errors: [FieldError] = [])
    /// The request body's media type is not one the route reads. 415.
    case unsupportedMediaType(String)
    /// A service the request depends on (a sign-in provider) cannot be reached now; the client may retry after
    /// `retryAfterSeconds`. 503 with `Retry-After`.
    case unavailable(String, retryAfterSeconds: Int)
    /// The caller asked too often (for mails to one address, say); it may ask again after `retryAfterSeconds`. 429
    /// with `Retry-After`.
    case tooManyRequests(String, retryAfterSeconds: Int)

    /// A validation error about a single field.
    public static func invalid(_ field: String, _ message: String) -> DomainError {
        .validation([FieldError(field: field, message: message)])
    }
}
