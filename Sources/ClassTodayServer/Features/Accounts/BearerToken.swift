import ClassTodayCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Bearer tokens: 256-bit random values handed to the client once and stored only as their SHA-256.
enum BearerToken {
    /// A new token: `byteCount` random bytes (32 by default), base64url without padding (43 characters for 32).
    static func generate(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncoded
    }

    /// The stored form of a token: hex SHA-256.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexString
    }

    /// The path where a `token` query parameter is accepted: WebSocket clients cannot always set headers.
    /// Elsewhere tokens in URLs are refused, since URLs end up in logs and proxies.
    static let queryTokenPath = "/v1/chat/ws"

    /// The token of an `Authorization: Bearer <token>` header, or of a `token` query parameter on
    /// ``queryTokenPath``.
    static func from(_ request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            let token = parts[1].trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : token
        }
        if request.uri.path == queryTokenPath, let token = request.uri.queryParameters.get("token"), !token.isEmpty {
            return token
        }
        return nil
    }
}
