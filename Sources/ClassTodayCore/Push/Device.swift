import Foundation

/// The push service a device is reached through.
public enum DevicePlatform: String, Sendable, Hashable, CaseIterable, Codable {
    /// An iPhone or iPad: Apple Push Notification service.
    case ios
    /// An Android phone: Firebase Cloud Messaging.
    case android
}

/// A phone that registered for pushes: its push token (from APNs or FCM), platform and the app's details.
public struct Device: Sendable, Hashable {
    /// The push token the platform gave the app (hex for APNs, FCM's registration token).
    public let token: String
    /// The owner.
    public let userId: String
    /// APNs or FCM.
    public let platform: DevicePlatform
    /// The app's version, as the app reports it.
    public let appVersion: String?
    /// The app's locale (`ko-KR`), as the app reports it.
    public let locale: String?
    /// When the device was first registered.
    public let createdAt: Date
    /// When it was last registered again.
    public let updatedAt: Date

    /// Creates a device.
    public init(token: String, userId: String, platform: DevicePlatform, appVersion: String?, locale: String?, createdAt: Date, updatedAt: Date) {
        self.token = token
        self.userId = userId
        self.platform = platform
        self.appVersion = appVersion
        self.locale = locale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What a device registration must look like.
public enum DeviceRules {
    /// Token length: APNs tokens are 64 hex characters today, FCM tokens about 150 to 200; room for growth.
    public static let tokenLength = 8...512
    /// App version length.
    public static let appVersionLength = 1...32
    /// Locale length (BCP 47 tags are short).
    public static let localeLength = 2...35
    /// The most devices one user keeps; registering another removes the least recently registered.
    public static let maximumPerUser = 20

    /// Whether `token` is a plausible push token: bounded length, letters, digits and `-_:.` only (FCM tokens use
    /// `:`, `-`, `_`; APNs tokens are hex).
    public static func isValidToken(_ token: String) -> Bool {
        tokenLength.contains(token.utf8.count) && token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || byte == 0x3A || byte == 0x2E
        }
    }

    /// Checks a registration's fields into `validator`.
    public static func check(platform: String?, appVersion: String?, locale: String?, into validator: inout FieldValidator) {
        if let platform {
            validator.check(DevicePlatform(rawValue: platform) != nil, "platform", "must be ios or android")
        } else {
            validator.fail("platform", "is required")
        }
        validator.checkLength(appVersion, "appVersion", appVersionLength)
        validator.checkLength(locale, "locale", localeLength)
        if let locale {
            validator.check(locale.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F },
                            "locale", "must be a language tag such as ko-KR")
        }
    }
}

/// A device registration: the fields a client sends with `PUT /v1/me/devices/{token}`.
public struct DeviceRegistration: Sendable, Hashable {
    /// The push token.
    public let token: String
    /// The platform.
    public let platform: DevicePlatform
    /// The app's version.
    public let appVersion: String?
    /// The app's locale.
    public let locale: String?

    /// Creates a registration.
    public init(token: String, platform: DevicePlatform, appVersion: String?, locale: String?) {
        self.token = token
        self.platform = platform
        self.appVersion = appVersion
        self.locale = locale
    }
}

/// Stores devices and per-room mutes. Implementations are named after their backend.
public protocol DeviceRepository: Sendable {
    /// Registers (or registers again) a device of `userId` for the session whose bearer token hashes to
    /// `sessionTokenHash`; true when it was new to the user. A token another user held moves to `userId`.
    func register(_ registration: DeviceRegistration, userId: String, sessionTokenHash: String, at date: Date) async throws -> Bool
    /// Removes `userId`'s device `token`; throws ``DomainError/notFound(_:)`` when the user has no such device.
    func remove(token: String, userId: String) async throws
    /// The devices of `userId`, most recently registered first.
    func devices(of userId: String) async throws -> [Device]
    /// Mutes or unmutes `roomId` for `userId`, who must be a member (``DomainError/notFound(_:)`` otherwise).
    func setMuted(_ muted: Bool, roomId: String, userId: String, at date: Date) async throws
    /// Which of `roomIds` `userId` muted.
    func mutedRooms(of userId: String, among roomIds: [String]) async throws -> Set<String>
}
