import ClassTodayCore
import Logging
import Foundation
import HTTPTypes
import Hummingbird

/// Signup, login, logout, token refresh, the caller's own profile and public profiles.
struct AccountsController {
    let users: any UserRepository
    let imageRecords: any ImageRecordRepository
    let hasher: PasswordHasher
    /// Hands out and renews bearer and refresh tokens.
    let issuer: SessionIssuer
    /// The banned words that nicknames must not hold.
    let bannedWords: BannedWordsFile
    /// The version of the terms of service users accept now.
    let termsVersion: String
    /// Deletes accounts.
    let eraser: AccountEraser
    /// Creates accounts with their verification mail.
    let tokens: any AccountTokenRepository
    /// Writes the verification mail.
    let mails: AccountMails
    /// Wakes the mail delivery.
    let mailQueued: @Sendable () -> Void

    /// Adds `/auth/...`, `/me` and `/users/{id}`.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/signup", use: signup)
        group.post("auth/login", use: login)
        group.post("auth/logout", use: logout)
        group.post("auth/refresh", use: refresh)
        group.get("me", use: me)
        group.patch("me", use: updateMe)
        group.delete("me", use: deleteMe)
        group.put("me/location", use: updateLocation)
        group.get("users/{id}", use: publicProfile)
    }

    @Sendable func signup(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionResponse> {
        let body = try await request.decode(as: SignupRequest.self, context: context)
        var validator = FieldValidator()
        UserRules.checkEmail(body.email, into: &validator)
        UserRules.checkPassword(body.password, into: &validator)
        validator.require(body.nickname, "nickname")
        validator.checkLength(body.nickname, "nickname", UserRules.nicknameLength)
        bannedWords.filter.check(body.nickname, "nickname", into: &validator)
        UserRules.checkTermsVersion(body.termsVersion, current: termsVersion, into: &validator)
        let locale = Self.locale(body.locale, into: &validator)
        try validator.throwIfInvalid()
        guard let email = body.email, let password = body.password, let nickname = body.nickname else {
            throw DomainError.badRequest("email, password and nickname are required")
        }
        let hash = try await hasher.hash(password)
        // A client that sends no termsVersion showed the current terms (the field is optional for older clients).
        let newUser = NewUser(email: email, passwordHash: hash, nickname: nickname.trimmingWhitespace(), termsVersion: termsVersion,
                              locale: locale ?? request.headers[.acceptLanguage].flatMap(UserLocale.init(acceptLanguage:)) ?? .default)
        let (token, grant) = AccountRecoveryController.makeToken()
        let user = try await self.tokens.createAccount(newUser, at: Date(), verification: grant, compose: { [mails] in
            mails.emailVerification(token: token, to: $0)
        })
        mailQueued()
        let tokens = try await issuer.start(userId: user.id)
        context.logger.info("signed up", metadata: ["user_id": "\(user.id)"])
        return EditedResponse(status: .created, response: SessionResponse(tokens, user: response(user)))
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let body = try await request.decode(as: LoginRequest.self, context: context)
        var validator = FieldValidator()
        validator.require(body.email, "email")
        validator.require(body.password, "password")
        try validator.throwIfInvalid()
        guard let email = body.email, let password = body.password else {
            throw DomainError.badRequest("email and password are required")
        }
        let credentials = try await users.credentials(email: email)
        guard try await hasher.verify(password, against: credentials?.passwordHash),
              let credentials, let user = try await users.user(id: credentials.userId)
        else {
            throw DomainError.unauthorized("wrong email or password")
        }
        return SessionResponse(try await issuer.start(userId: user.id), user: response(user))
    }

    @Sendable func refresh(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let body = try await request.decode(as: RefreshRequest.self, context: context)
        var validator = FieldValidator()
        validator.require(body.refreshToken, "refreshToken")
        validator.checkLength(body.refreshToken, "refreshToken", 1...256)
        try validator.throwIfInvalid()
        guard let refreshToken = body.refreshToken else { throw DomainError.badRequest("refreshToken is required") }
        let (userId, tokens) = try await issuer.refresh(refreshToken)
        guard let user = try await users.user(id: userId) else { throw DomainError.unauthorized("the account no longer exists") }
        return SessionResponse(tokens, user: response(user))
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await issuer.end(try context.requireCaller())
        return Response(status: .noContent)
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> UserResponse {
        let caller = try context.requireCaller()
        guard let user = try await users.user(id: caller.userId) else { throw DomainError.unauthorized("the account no longer exists") }
        return response(user)
    }

    @Sendable func updateMe(_ request: Request, context: AppRequestContext) async throws -> UserResponse {
        let caller = try context.requireCaller()
        let patch = try await request.decode(as: ProfilePatchRequest.self, context: context)
        var validator = FieldValidator()
        validator.checkLength(patch.nickname, "nickname", UserRules.nicknameLength)
        bannedWords.filter.check(patch.nickname, "nickname", into: &validator)
        UserRules.checkTermsVersion(patch.termsVersion, current: termsVersion, into: &validator)
        validator.checkLength(patch.description, "description", UserRules.descriptionLength)
        validator.checkLength(patch.company, "company", UserRules.companyLength)
        let subjects: [Subject]? = EnumField.list(patch.subjects, "subjects", &validator)
        let locale = Self.locale(patch.locale, into: &validator)
        UserRules.checkNoDuplicates(subjects, "subjects", into: &validator)
        if case .value(let imageId) = patch.profileImageId {
            let image = Identifier.isWellFormed(imageId) ? try await imageRecords.record(id: imageId) : nil
            validator.check(image?.uploaderId == caller.userId, "profileImageId", "must be an image you uploaded")
        }
        try validator.throwIfInvalid()
        let user = try await users.update(id: caller.userId) { user in
            if let nickname = patch.nickname { user.nickname = nickname.trimmingWhitespace() }
            if let description = patch.description { user.description = description }
            if let company = patch.company { user.company = company }
            if let subjects { user.subjects = subjects }
            if let locale { user.locale = locale }
            switch patch.profileImageId {
            case .absent: break
            case .null: user.profileImageId = nil
            case .value(let imageId): user.profileImageId = imageId
            }
            if let accepted = patch.termsVersion, accepted != user.termsVersion {
                (user.termsVersion, user.termsAcceptedAt) = (accepted, Date())
            }
        }
        return response(user)
    }

    /// Deletes the caller's account once they proved again who they are (``AccountDeletion/checkReauthentication(passwordMatches:hasPassword:sessionStart:now:)``).
    @Sendable func deleteMe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        // The body is optional: an account a provider created has no password to send.
        let body = try await context.requestDecoder.decodeIfPresent(AccountDeletionRequest.self, from: request, context: context)
            ?? AccountDeletionRequest(password: nil)
        guard let user = try await users.user(id: caller.userId) else { throw DomainError.unauthorized("the account no longer exists") }
        let passwordHash = try await users.ownPasswordHash(of: user) ?? ""
        let matches: Bool? = if let password = body.password, !passwordHash.isEmpty {
            try await hasher.verify(password, against: passwordHash)
        } else {
            nil
        }
        try AccountDeletion.checkReauthentication(passwordMatches: matches, hasPassword: !passwordHash.isEmpty,
                                                  sessionStart: caller.signedInAt, now: Date())
        try await eraser.erase(userId: caller.userId, logger: context.logger)
        return Response(status: .noContent)
    }

    @Sendable func updateLocation(_ request: Request, context: AppRequestContext) async throws -> UserResponse {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: LocationRequest.self, context: context)
        var validator = FieldValidator()
        validator.require(body.lat, "lat")
        validator.require(body.lon, "lon")
        if let lat = body.lat { validator.check(lat.isFinite && (-90...90).contains(lat), "lat", "must be between -90 and 90") }
        if let lon = body.lon { validator.check(lon.isFinite && (-180...180).contains(lon), "lon", "must be between -180 and 180") }
        validator.checkLength(body.keywordLocation, "keywordLocation", UserRules.keywordLocationLength)
        validator.checkLength(body.detailLocation, "detailLocation", UserRules.detailLocationLength)
        try validator.throwIfInvalid()
        guard let lat = body.lat, let lon = body.lon else { throw DomainError.badRequest("lat and lon are required") }
        let user = try await users.update(id: caller.userId) { user in
            user.location = GeoPoint(lat: lat, lon: lon)
            user.keywordLocation = body.keywordLocation
            user.detailLocation = body.detailLocation
        }
        return response(user)
    }

    @Sendable func publicProfile(_ request: Request, context: AppRequestContext) async throws -> PublicProfileResponse {
        PublicProfileResponse(user: try await users.existingUser(id: try context.parameters.require("id")))
    }

    /// The locale a client sent (`ko` or `en`), or nil when it sent none; anything else, null too, is a validation error.
    private static func locale(_ value: PatchValue<String>, into validator: inout FieldValidator) -> UserLocale? {
        if case .absent = value { return nil }
        let locale: UserLocale? = if case .value(let text) = value { UserLocale(rawValue: text) } else { nil }
        validator.check(locale != nil, "locale", "must be one of \(UserLocale.allCases.map(\.rawValue).joined(separator: ", "))")
        return locale
    }

    /// The full user, with whether the terms they accepted are the current ones.
    private func response(_ user: User) -> UserResponse {
        UserResponse(user: user, currentTermsVersion: termsVersion)
    }
}
