import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The per-request context of every route: the core storage, the caller's identity, the client address.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext, WebSocketRequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The signed-in caller, set by ``TokenAuthenticator`` when a valid token came with the request.
    public var caller: Caller?
    /// The address the request came from.
    public let remoteAddress: SocketAddress?
    /// The request-body limit for decoding, set per route group by ``BodyLimitMiddleware``.
    public var maxUploadSize: Int = 1 << 20
    /// Where a WebSocket route leaves its handler for the upgrade.
    public let webSocket: WebSocketHandlerReference<AppRequestContext>
    /// The connection the request arrived on.
    public let channel: any Channel

    /// Creates the context for a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.webSocket = .init()
        self.channel = source.channel
    }

    /// JSON with RFC 3339 dates; decoding failures become 400 problems without internals.
    public var requestDecoder: APIJSONDecoder { APIJSONDecoder() }
    /// JSON with RFC 3339 dates.
    public var responseEncoder: APIJSONEncoder { APIJSONEncoder() }

    /// The signed-in caller, or ``DomainError/unauthorized(_:)`` for routes that need one.
    public func requireCaller() throws -> Caller {
        guard let caller else { throw DomainError.unauthorized("a valid bearer token is required") }
        return caller
    }

    /// The signed-in caller when they are an operator: 401 without a valid token, 403 for other users.
    public func requireOperator() throws -> Caller {
        let caller = try requireCaller()
        guard caller.isOperator else { throw DomainError.forbidden("only operators may use the moderation routes") }
        return caller
    }

    /// The client key used for rate limiting: the address without its port.
    public var clientAddress: String {
        remoteAddress?.ipAddress ?? "unknown"
    }
}

/// Who is making a request.
public struct Caller: Sendable, Hashable {
    /// The user's id.
    public let userId: String
    /// SHA-256 of the token the request carried, used to revoke it on logout.
    public let tokenHash: String
    /// The sign-in the token belongs to (``SessionOwner/sessionId``): what logout ends.
    public let sessionId: String
    /// Whether the caller holds the operator role (granted by `classtoday admin grant` only).
    public var isOperator = false
    /// When the caller's session started (they signed in).
    public var signedInAt = Date.distantPast
    /// Whether the caller's address is verified.
    public var emailVerified = true

    /// Throws a 403 problem when `required` (the `auth.requireVerifiedEmail` setting) and the caller's address is not
    /// verified yet: what posting classes and opening chats check.
    public func requireVerifiedEmail(_ required: Bool) throws {
        guard required, !emailVerified else { return }
        throw DomainError.forbidden(
            "verify your email address first: follow the link mailed to it, or ask for a new one at POST /v1/auth/verify-email/resend")
    }
}
