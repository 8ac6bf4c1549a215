import Crypto
import Foundation

/// The keys a request is signed with: an access key pair and, for temporary credentials, a session token.
public struct AWSCredentials: Sendable, Equatable {
    /// The access key id (`AKIA…`), sent in the clear.
    public var accessKeyId: String
    /// The secret access key, never sent.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Creates credentials.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for one region and service: the canonical request, the string to sign,
/// the derived key and the `Authorization` header, as the AWS documentation describes them. Paths are encoded once, as
/// S3 expects (other services encode twice); callers send the same encoded path and query that were signed.
public struct SigV4Signer: Sendable {
    /// The keys.
    public let credentials: AWSCredentials
    /// The region (`us-east-1`; `auto` for Cloudflare R2).
    public let region: String
    /// The service (`s3`).
    public let service: String

    /// Creates a signer.
    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The hex SHA-256 of an empty payload.
    public static let emptyPayloadHash = hexSHA256(Data())

    /// The headers to add to a request so that it is signed: `x-amz-date`, `x-amz-security-token` with a session token,
    /// and `Authorization`. `path` and `query` are not encoded yet (send ``encodedPath(_:)`` and ``canonicalQuery(_:)``);
    /// `headers` are every other header sent and signed, `Host` among them.
    public func authorizationHeaders(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, date: Date
    ) -> [(String, String)] {
        let timestamp = Self.timestamp(date)
        var added = [("x-amz-date", timestamp)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let canonical = Self.canonicalHeaders(headers + added)
        let request = [
            method, Self.encodedPath(path), Self.canonicalQuery(query), canonical.block, canonical.names, payloadHash,
        ].joined(separator: "\n")
        let signature = signature(of: request, timestamp: timestamp)
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope(timestamp)), "
            + "SignedHeaders=\(canonical.names), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// A presigned query (signature in the URL, `UNSIGNED-PAYLOAD`) for `method` on `path` of `host`, valid for
    /// `expires` seconds from `date`: the query string to append to ``encodedPath(_:)``.
    public func presignedQuery(method: String, host: String, path: String, expires: Int, date: Date) -> String {
        let timestamp = Self.timestamp(date)
        var query = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope(timestamp))"),
            ("X-Amz-Date", timestamp), ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        let canonical = Self.canonicalHeaders([("host", host)])
        let request = [
            method, Self.encodedPath(path), Self.canonicalQuery(query), canonical.block, canonical.names, "UNSIGNED-PAYLOAD",
        ].joined(separator: "\n")
        return Self.canonicalQuery(query) + "&X-Amz-Signature=" + signature(of: request, timestamp: timestamp)
    }

    /// The hex signature of a canonical request made at `timestamp`.
    private func signature(of canonicalRequest: String, timestamp: String) -> String {
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope(timestamp), Self.hexSHA256(Data(canonicalRequest.utf8))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [String(timestamp.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Data(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key)).hexString
    }

    /// The credential scope: `20150830/us-east-1/service/aws4_request`.
    private func scope(_ timestamp: String) -> String {
        "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request"
    }

    /// The lowercased, trimmed headers sorted by name (values of a repeated name joined by commas), as a block of
    /// `name:value` lines ending in a newline, and their names joined by `;`.
    private static func canonicalHeaders(_ headers: [(String, String)]) -> (block: String, names: String) {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            values[name.lowercased(), default: []].append(trimmed)
        }
        let names = values.keys.sorted()
        let block = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// The path with every byte but the unreserved ones and `/` percent-encoded; `/` when empty.
    public static func encodedPath(_ path: String) -> String {
        let encoded = percentEncode(path, keepingSlash: true)
        return encoded.hasPrefix("/") ? encoded : "/" + encoded
    }

    /// The query as `name=value` pairs, both percent-encoded, sorted by name and then value, joined by `&`.
    public static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { pair in
            (percentEncode(pair.0, keepingSlash: false), percentEncode(pair.1, keepingSlash: false))
        }
        let sorted = encoded.sorted { left, right in
            left.name == right.name ? left.value < right.value : left.name < right.name
        }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// `text` with every byte outside RFC 3986's unreserved set (and `/` unless `keepingSlash`) as `%XX`.
    static func percentEncode(_ text: String, keepingSlash: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if unreserved.contains(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// RFC 3986's unreserved characters.
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8)

    /// `20150830T123600Z` for `date`, in UTC.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    /// The lowercase hex SHA-256 of `data`.
    public static func hexSHA256(_ data: Data) -> String {
        SHA256.hash(data: data).hexString
    }
}
