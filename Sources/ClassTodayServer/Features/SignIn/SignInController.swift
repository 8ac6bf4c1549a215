import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Sign-in with Apple, Kakao, Google and Naver: the provider's token is checked on the server, the identity (provider,
/// subject) finds or creates the account, and the answer is the server's own session, like login's. Signed-in users
/// list, link and unlink their identities.
struct SignInController {
    /// The configured providers.
    let providers: IdentityProviders
    /// Linked identities.
    let identities: any IdentityRepository
    /// Hands out the session.
    let issuer: SessionIssuer
    /// The banned words a provider's name must not hold to become the nickname.
    let bannedWords: BannedWordsFile
    /// The version of the terms of service users accept now.
    let termsVersion: String

    /// Adds `/auth/{provider}` and `/me/identities...`.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/{provider}", use: signIn)
        group.get("me/identities", use: list)
        group.post("me/identities/{provider}", use: link)
        group.delete("me/identities/{provider}", use: unlink)
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let (provider, identity) = try await verifiedIdentity(request, context: context)
        var generator = SystemRandomNumberGenerator()
        let nickname = UserRules.providerNickname(identity.name, filter: bannedWords.filter, using: &generator)
        let (user, created) = try await identities.signIn(
            identity, newUser: NewProviderUser(nickname: nickname, termsVersion: termsVersion), at: Date())
        context.logger.info("signed in", metadata: ["user_id": "\(user.id)", "provider": "\(provider.rawValue)", "created": "\(created)"])
        return SessionResponse(try await issuer.start(userId: user.id), user: UserResponse(user: user, currentTermsVersion: termsVersion),
                               created: created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> IdentitiesResponse {
        IdentitiesResponse(try await identities.methods(userId: try context.requireCaller().userId))
    }

    @Sendable func link(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<IdentityResponse> {
        let caller = try context.requireCaller()
        let (_, identity) = try await verifiedIdentity(request, context: context)
        switch try await identities.link(identity, toUser: caller.userId, at: Date()) {
        case .linked(let linked): return EditedResponse(status: .created, response: IdentityResponse(linked))
        case .alreadyLinked(let linked): return EditedResponse(status: .ok, response: IdentityResponse(linked))
        }
    }

    @Sendable func unlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        guard let provider = IdentityProvider(rawValue: try context.parameters.require("provider")) else {
            throw DomainError.notFound("identity")
        }
        try await identities.unlink(provider, fromUser: caller.userId)
        return Response(status: .noContent)
    }

    /// The configured provider of the path and the identity its credential in the body proves.
    private func verifiedIdentity(_ request: Request, context: AppRequestContext) async throws -> (IdentityProvider, VerifiedIdentity) {
        let provider = try providers.configured(try context.parameters.require("provider"))
        let body = try await request.decode(as: ProviderCredentialRequest.self, context: context)
        let identity = try await providers.verify(provider, try body.credential(for: provider), now: Date())
        return (provider, identity)
    }
}
