import ClassTodayCore
import Foundation
import JWTKit

/// The signing keys of the configured push services, read from their files once at start-up (never from code).
public struct PushCredentials: Sendable {
    /// What APNs needs: the ES256 key and who signs with it.
    public struct APNs: Sendable {
        /// The `.p8` key.
        let key: ES256PrivateKey
        /// The key id (`kid`).
        let keyId: String
        /// The team id (`iss`).
        let teamId: String
        /// The bundle id (`apns-topic`).
        let topic: String
        /// Where pushes go.
        let endpoint: String
    }

    /// What FCM needs: the service account.
    public struct FCM: Sendable {
        /// The service account's email (the assertion's `iss`).
        let clientEmail: String
        /// The service account's RS256 key.
        let privateKey: JWTKit.Insecure.RSA.PrivateKey
        /// Where assertions are exchanged for access tokens.
        let tokenURI: String
        /// The Firebase project.
        let projectId: String
        /// The FCM API's base URL.
        let endpoint: String
    }

    /// APNs, when configured.
    let apns: APNs?
    /// FCM, when configured.
    let fcm: FCM?

    /// No push service.
    public static let none = PushCredentials(apns: nil, fcm: nil)

    /// The fields of a service-account JSON file that FCM needs.
    private struct ServiceAccountFile: Decodable {
        let client_email: String
        let private_key: String
        let token_uri: String
        let project_id: String
    }

    /// Reads the key files `settings` names; a file that cannot be read or parsed is a ``ConfigurationError`` naming
    /// its key (without the file's contents).
    public static func load(_ settings: PushSettings) throws -> PushCredentials {
        var apns: APNs?
        if let path = settings.apns.keyPath {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8), let key = try? ES256PrivateKey(pem: pem) else {
                throw ConfigurationError.invalid(key: "push.apns.keyPath", reason: "must be a readable .p8 (PKCS#8 PEM, P-256) key file")
            }
            apns = APNs(key: key, keyId: settings.apns.keyId, teamId: settings.apns.teamId, topic: settings.apns.topic,
                        endpoint: settings.apns.resolvedEndpoint)
        }
        var fcm: FCM?
        if let path = settings.fcm.serviceAccountPath {
            guard let data = FileManager.default.contents(atPath: path),
                  let account = try? JSONDecoder().decode(ServiceAccountFile.self, from: data),
                  let key = try? JWTKit.Insecure.RSA.PrivateKey(pem: account.private_key) else {
                throw ConfigurationError.invalid(
                    key: "push.fcm.serviceAccountPath",
                    reason: "must be a readable service-account JSON file with client_email, private_key (RSA PEM), token_uri and project_id")
            }
            guard let components = URLComponents(string: account.token_uri), components.scheme == "https" || components.host.map(Self.isLoopback) == true else {
                throw ConfigurationError.invalid(key: "push.fcm.serviceAccountPath", reason: "token_uri must use https")
            }
            fcm = FCM(clientEmail: account.client_email, privateKey: key, tokenURI: account.token_uri, projectId: account.project_id,
                      endpoint: settings.fcm.endpoint)
        }
        return PushCredentials(apns: apns, fcm: fcm)
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
