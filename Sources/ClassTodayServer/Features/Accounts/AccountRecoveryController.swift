import ClassTodayCore
import Foundation
import Hummingbird
import Logging

/// Account recovery and changes by mail: password reset, email verification, change of password and of address.
struct AccountRecoveryController {
    let users: any UserRepository
    /// Tokens and the mails that carry them.
    let tokens: any AccountTokenRepository
    let hasher: PasswordHasher
    /// Starts the session a password reset answers with.
    let issuer: SessionIssuer
    /// Closes the chat connections of sign-ins a password change ended.
    let hub: ChatHub
    /// Writes the mails.
    let mails: AccountMails
    /// Where reset requests are handed after the answer.
    let resetRequests: PasswordResetRequests
    /// How often mails may be asked for.
    let limits: AccountMailLimits
    /// Wakes the mail delivery.
    let mailQueued: @Sendable () -> Void
    /// The version of the terms of service, for the user in a session answer.
    let termsVersion: String

    /// Adds `/auth/password-reset`, `/auth/password-reset/confirm`, `/auth/verify-email`, `/auth/verify-email/resend`,
    /// `/me/password` and `/me/email`.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/password-reset", use: requestReset)
        group.post("auth/password-reset/confirm", use: confirmReset)
        group.post("auth/verify-email", use: verifyEmail)
        group.post("auth/verify-email/resend", use: resendVerification)
        group.put("me/password", use: changePassword)
        group.put("me/email", use: changeEmail)
    }

    /// `POST /v1/auth/password-reset {email}`: 202 whatever the address; the work that depends on whether an account has
    /// it happens after the answer (``PasswordResetRequests``), so that the answer's time does not tell.
    @Sendable func requestReset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: PasswordResetRequest.self, context: context)
        var validator = FieldValidator()
        UserRules.checkEmail(body.email, into: &validator)
        try validator.throwIfInvalid()
        guard let email = body.email else { throw DomainError.badRequest("email is required") }
        try limits.takeRequest(client: context.clientAddress)
        try limits.takeMail("reset:" + UserRules.normalizedEmail(email))
        resetRequests.submit(email)
        return Response(status: .accepted)
    }

    /// `POST /v1/auth/password-reset/confirm {token, newPassword}`: sets the password, ends every sign-in of the account
    /// and answers with a new session.
    @Sendable func confirmReset(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let body = try await request.decode(as: PasswordResetConfirmRequest.self, context: context)
        var validator = FieldValidator()
        Self.checkToken(body.token, into: &validator)
        UserRules.checkPassword(body.newPassword, field: "newPassword", into: &validator)
        try validator.throwIfInvalid()
        guard let token = body.token, let newPassword = body.newPassword else { throw DomainError.badRequest("token and newPassword are required") }
        let hash = try await hasher.hash(newPassword)
        let ended = try await tokens.resetPassword(tokenHash: BearerToken.hash(token), newPasswordHash: hash, at: Date())
        await hub.close(userId: ended.userId, reason: "the password was reset")
        let user = try await users.existingUser(id: ended.userId)
        context.logger.info("password reset", metadata: ["user_id": "\(ended.userId)", "sessions_ended": "\(ended.sessionIds.count)"])
        return SessionResponse(try await issuer.start(userId: user.id), user: UserResponse(user: user, currentTermsVersion: termsVersion))
    }

    /// `POST /v1/auth/verify-email {token}`: marks the address verified, or applies a change of address. 204.
    @Sendable func verifyEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: TokenRequest.self, context: context)
        var validator = FieldValidator()
        Self.checkToken(body.token, into: &validator)
        try validator.throwIfInvalid()
        guard let token = body.token else { throw DomainError.badRequest("token is required") }
        let userId = try await tokens.confirmEmail(tokenHash: BearerToken.hash(token), at: Date())
        context.logger.info("email confirmed", metadata: ["user_id": "\(userId)"])
        return Response(status: .noContent)
    }

    /// `POST /v1/auth/verify-email/resend` (auth): mails a new verification link; 409 when the address is verified.
    @Sendable func resendVerification(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let user = try await users.existingUser(id: caller.userId)
        guard !user.emailVerified else { throw DomainError.conflict("the email address is verified already") }
        guard UserRules.isValidEmail(user.email) else { throw DomainError.conflict("the account has no email address to verify") }
        try limits.takeMail("verify:" + caller.userId)
        let (token, grant) = Self.makeToken()
        if try await tokens.issueEmailVerification(userId: caller.userId, grant: grant, compose: { [mails] in
            mails.emailVerification(token: token, to: $0)
        }) {
            mailQueued()
        }
        return Response(status: .accepted)
    }

    /// `PUT /v1/me/password {currentPassword, newPassword}` (auth): sets the password and ends every other sign-in of
    /// the account (their tokens, push devices and chat connections); the caller's stays. 204.
    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: PasswordChangeRequest.self, context: context)
        var validator = FieldValidator()
        validator.require(body.currentPassword, "currentPassword")
        UserRules.checkPassword(body.newPassword, field: "newPassword", into: &validator)
        try validator.throwIfInvalid()
        guard let current = body.currentPassword, let newPassword = body.newPassword else {
            throw DomainError.badRequest("currentPassword and newPassword are required")
        }
        try await checkPassword(current, of: caller)
        let ended = try await tokens.changePassword(
            userId: caller.userId, newPasswordHash: try await hasher.hash(newPassword), keeping: caller.sessionId, at: Date())
        for sessionId in ended.sessionIds {
            await hub.close(userId: caller.userId, sessionId: sessionId, reason: "the password was changed")
        }
        context.logger.info("password changed", metadata: ["sessions_ended": "\(ended.sessionIds.count)"])
        return Response(status: .noContent)
    }

    /// `PUT /v1/me/email {password, newEmail}` (auth): mails a link to the new address (the change applies when it is
    /// followed) and a notice to the old one. 202; 409 when another account has the new address.
    @Sendable func changeEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: EmailChangeRequest.self, context: context)
        var validator = FieldValidator()
        validator.require(body.password, "password")
        UserRules.checkEmail(body.newEmail, field: "newEmail", into: &validator)
        try validator.throwIfInvalid()
        guard let password = body.password, let newEmail = body.newEmail else { throw DomainError.badRequest("password and newEmail are required") }
        try await checkPassword(password, of: caller)
        try limits.takeMail("change:" + caller.userId)
        let (token, grant) = Self.makeToken()
        try await tokens.issueEmailChange(userId: caller.userId, newEmail: newEmail, grant: grant, compose: { [mails] in
            mails.emailChange(token: token, newEmail: newEmail, for: $0)
        })
        mailQueued()
        return Response(status: .accepted)
    }

    /// Throws 403 unless `password` is the password of the caller's account (422 for an account without one).
    private func checkPassword(_ password: String, of caller: Caller) async throws {
        guard let passwordHash = try await users.ownPasswordHash(of: try await users.existingUser(id: caller.userId)) else {
            throw DomainError.forbidden("the account signs in with a provider and has no password")
        }
        guard try await hasher.verify(password, against: passwordHash) else {
            throw DomainError.forbidden("the password is wrong")
        }
    }

    /// Checks a token field's presence and length.
    private static func checkToken(_ token: String?, into validator: inout FieldValidator) {
        validator.require(token, "token")
        if let token, !AccountTokenRules.tokenLength.contains(token.unicodeScalars.count) {
            validator.fail("token", "must be \(AccountTokenRules.tokenLength.lowerBound) to \(AccountTokenRules.tokenLength.upperBound) characters")
        }
    }

    /// A new token and its grant, valid for ``AccountTokenRules/lifetime`` from now.
    static func makeToken() -> (token: String, grant: AccountTokenGrant) {
        let token = BearerToken.generate(byteCount: AccountTokenRules.randomBytes)
        let now = Date()
        return (token, AccountTokenGrant(tokenHash: BearerToken.hash(token), issuedAt: now,
                                         expiresAt: now.addingTimeInterval(AccountTokenRules.lifetime.seconds)))
    }
}

/// The body of `POST /v1/auth/password-reset`.
struct PasswordResetRequest: Decodable {
    let email: String?
}

/// The body of `POST /v1/auth/password-reset/confirm`.
struct PasswordResetConfirmRequest: Decodable {
    let token: String?
    let newPassword: String?
}

/// The body of `POST /v1/auth/verify-email`.
struct TokenRequest: Decodable {
    let token: String?
}

/// The body of `PUT /v1/me/password`.
struct PasswordChangeRequest: Decodable {
    let currentPassword: String?
    let newPassword: String?
}

/// The body of `PUT /v1/me/email`.
struct EmailChangeRequest: Decodable {
    let password: String?
    let newEmail: String?
}
