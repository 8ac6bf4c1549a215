/// The signed-in session's tokens, shared by the REST middleware and the chat client.
///
/// The server rotates tokens: `POST /v1/auth/refresh` answers with a new bearer token and a new refresh token, and a
/// refresh token works once. The store therefore runs at most one refresh at a time; callers whose token was
/// rejected meanwhile wait for that refresh and use its result.
public actor SessionStore {
    /// A bearer token and the refresh token that renews it.
    public struct Tokens: Sendable, Hashable {
        /// Sent as `Authorization: Bearer <accessToken>`.
        public var accessToken: String
        /// Renews the bearer token once; nil when the session cannot be renewed.
        public var refreshToken: String?

        /// Tokens from their values.
        public init(accessToken: String, refreshToken: String?) {
            (self.accessToken, self.refreshToken) = (accessToken, refreshToken)
        }

        /// The tokens of a session the server issued (sign-up, login, refresh, a sign-in provider).
        public init(_ session: Components.Schemas.Session) {
            self.init(accessToken: session.token, refreshToken: session.refreshToken)
        }
    }

    /// Renews tokens with a refresh token: the new tokens, or nil when the server refused the refresh token.
    public typealias Refresher = @Sendable (_ refreshToken: String) async throws -> Tokens?

    /// The current tokens; nil when signed out.
    public private(set) var tokens: Tokens?
    private let didChange: @Sendable (Tokens?) -> Void
    private var refreshing: Task<Tokens?, any Error>?

    /// A store holding `tokens` (for example read back from the Keychain).
    /// - Parameter didChange: called after every change (a refresh, a sign-in, a sign-out), to persist the tokens.
    public init(tokens: Tokens? = nil, didChange: @escaping @Sendable (Tokens?) -> Void = { _ in }) {
        self.tokens = tokens
        self.didChange = didChange
    }

    /// Replaces the tokens, after a sign-in (`Tokens(session)`) or a sign-out (nil).
    public func update(_ tokens: Tokens?) {
        self.tokens = tokens
        didChange(tokens)
    }

    /// The bearer token to send now, if signed in.
    public var accessToken: String? { tokens?.accessToken }

    /// A bearer token to use instead of `rejected`, which the server refused.
    ///
    /// When the current token is no longer `rejected`, another caller already renewed it and that token is returned.
    /// Otherwise one refresh runs (callers arriving meanwhile share it). A refused refresh token signs the session
    /// out and returns nil.
    public func token(replacing rejected: String, using refresher: @escaping Refresher) async throws -> String? {
        if let current = tokens?.accessToken, current != rejected { return current }
        if let refreshing { return try await refreshing.value?.accessToken }
        guard let refreshToken = tokens?.refreshToken else { return nil }
        let task = Task { try await refresher(refreshToken) }
        refreshing = task
        defer { refreshing = nil }
        let renewed = try await task.value
        update(renewed)
        return renewed?.accessToken
    }
}
