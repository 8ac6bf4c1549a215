import ClassTodayCore
import Foundation

/// Hands out the tokens of a sign-in (signup, login, a provider), renews them and ends them: a bearer token that
/// expires after the access lifetime, and a refresh token that rotates on each use (a used one presented again revokes
/// its family). A sign-in that ends, by logout or a reused refresh token, closes its chat connections on every node.
struct SessionIssuer: Sendable {
    /// Where sessions and refresh tokens are stored.
    let sessions: any SessionRepository
    /// Closes the chat connections of a sign-in that ended.
    let hub: ChatHub
    /// How long a bearer token works.
    let accessLifetime: Duration
    /// How long a refresh token works.
    let refreshLifetime: Duration

    /// The tokens handed to a client: never stored, only their hashes are.
    struct Tokens: Sendable {
        /// The bearer token.
        let token: String
        /// The refresh token that renews it.
        let refreshToken: String
        /// Seconds until the bearer token expires.
        let expiresIn: Int
    }

    /// Starts a new session (a new refresh-token family) for the user.
    func start(userId: String) async throws -> Tokens {
        let (tokens, grant) = makeTokens()
        try await sessions.start(grant, userId: userId)
        return tokens
    }

    /// Uses up `refreshToken` and returns new tokens for its user. Throws ``DomainError/unauthorized(_:)`` for a refresh
    /// token that is unknown, expired or used before (which revokes its family).
    func refresh(_ refreshToken: String) async throws -> (userId: String, tokens: Tokens) {
        let (tokens, grant) = makeTokens()
        switch try await sessions.refresh(tokenHash: BearerToken.hash(refreshToken), with: grant) {
        case .rotated(let userId): return (userId, tokens)
        case .reused(let userId, let sessionId):
            await hub.close(userId: userId, sessionId: sessionId, reason: "the sign-in was revoked")
            throw DomainError.unauthorized("the refresh token was used before; every token of its sign-in is revoked")
        case .invalid: throw DomainError.unauthorized("the refresh token is invalid or expired")
        }
    }

    /// Ends the caller's sign-in: every bearer and refresh token of it, the push devices it registered and its chat
    /// connections on every node.
    func end(_ caller: Caller) async throws {
        try await sessions.revoke(tokenHash: caller.tokenHash)
        await hub.close(userId: caller.userId, sessionId: caller.sessionId, reason: "signed out")
    }

    private func makeTokens() -> (Tokens, SessionGrant) {
        let (token, refreshToken, now) = (BearerToken.generate(), BearerToken.generate(), Date())
        let grant = SessionGrant(
            accessTokenHash: BearerToken.hash(token), refreshTokenHash: BearerToken.hash(refreshToken), issuedAt: now,
            accessExpiresAt: now.addingTimeInterval(accessLifetime.seconds),
            refreshExpiresAt: now.addingTimeInterval(refreshLifetime.seconds))
        return (Tokens(token: token, refreshToken: refreshToken, expiresIn: Int(accessLifetime.seconds)), grant)
    }
}
