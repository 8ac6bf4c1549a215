import Foundation

/// A sign-in provider other than email and password.
public enum IdentityProvider: String, Sendable, Hashable, CaseIterable, Codable {
    /// Sign in with Apple (an OpenID Connect ID token).
    case apple
    /// Kakao Login with OpenID Connect (an ID token).
    case kakao
    /// Google Sign-In (an OpenID Connect ID token).
    case google
    /// Naver Login (an OAuth access token read through Naver's profile API; Naver issues no ID token).
    case naver

    /// The provider's name as people read it.
    public var displayName: String {
        switch self {
        case .apple: "Apple"
        case .kakao: "Kakao"
        case .google: "Google"
        case .naver: "Naver"
        }
    }
}

/// Who the provider says the user is, after the server checked the provider's token.
public struct VerifiedIdentity: Sendable, Hashable {
    /// The provider that vouched for the user.
    public let provider: IdentityProvider
    /// The provider's stable id of the user (`sub`): with the provider, the key of the identity.
    public let subject: String
    /// The email the provider gave, if it is a valid address (Apple's private relay addresses included); private to
    /// the user.
    public let email: String?
    /// The name the provider gave, if any, proposed as the nickname of a new account.
    public let name: String?

    /// Creates a verified identity; an `email` that is not a valid address is left out.
    public init(provider: IdentityProvider, subject: String, email: String?, name: String?) {
        self.provider = provider
        self.subject = subject
        self.email = email.flatMap { UserRules.isValidEmail($0) ? $0 : nil }
        self.name = name
    }
}

/// A provider identity linked to an account, as its owner sees it.
public struct LinkedIdentity: Sendable, Hashable {
    /// The provider.
    public let provider: IdentityProvider
    /// The email the provider gave when the identity was linked, if any.
    public let email: String?
    /// When the identity was linked.
    public let linkedAt: Date

    /// Creates a linked identity.
    public init(provider: IdentityProvider, email: String?, linkedAt: Date) {
        self.provider = provider
        self.email = email
        self.linkedAt = linkedAt
    }
}

/// The ways an account can sign in: its provider identities and whether it has a password.
public struct SignInMethods: Sendable, Hashable {
    /// The linked provider identities, in provider order.
    public let identities: [LinkedIdentity]
    /// Whether the account can sign in with email and password.
    public let hasPassword: Bool

    /// Creates the summary.
    public init(identities: [LinkedIdentity], hasPassword: Bool) {
        self.identities = identities
        self.hasPassword = hasPassword
    }

    /// Whether the account could still sign in after losing `provider`.
    public func canSignIn(without provider: IdentityProvider) -> Bool {
        hasPassword || identities.contains { $0.provider != provider }
    }
}

/// The outcome of linking an identity to an account.
public enum LinkOutcome: Sendable, Hashable {
    /// The identity is now linked.
    case linked(LinkedIdentity)
    /// The identity was linked to this account already.
    case alreadyLinked(LinkedIdentity)
}

/// The fields of an account created by a first provider sign-in.
public struct NewProviderUser: Sendable, Hashable {
    /// The public display name.
    public let nickname: String
    /// The version of the terms of service accepted by signing in.
    public let termsVersion: String

    /// Creates the record.
    public init(nickname: String, termsVersion: String) {
        self.nickname = nickname
        self.termsVersion = termsVersion
    }
}

/// Stores provider identities, keyed by (provider, subject) and never by email. Implementations are named after their
/// backend.
public protocol IdentityRepository: Sendable {
    /// The account of `identity`, created with `newUser` (and the identity linked to it) when the identity is new;
    /// `created` tells which. Two first sign-ins at once create one account.
    func signIn(_ identity: VerifiedIdentity, newUser: NewProviderUser, at date: Date) async throws -> (user: User, created: Bool)
    /// How the user can sign in. Throws ``DomainError/notFound(_:)`` for an unknown user.
    func methods(userId: String) async throws -> SignInMethods
    /// Links `identity` to the user. Throws ``DomainError/conflict(_:)`` when the identity belongs to another account
    /// or the user has another identity of the same provider.
    func link(_ identity: VerifiedIdentity, toUser userId: String, at date: Date) async throws -> LinkOutcome
    /// Unlinks the user's identity of `provider`. Throws ``DomainError/notFound(_:)`` when none is linked and
    /// ``DomainError/validation(_:)`` (naming `provider`) when it is the last way the user can sign in.
    func unlink(_ provider: IdentityProvider, fromUser userId: String) async throws
}
