import ClassTodayCore
import Configuration
import Foundation

/// Where image bytes are kept.
public enum ImageStoreKind: String, Sendable, Equatable, CaseIterable {
    /// `images/` in the data folder (shared by several nodes only through a shared volume).
    case disk
    /// An S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Ceph RGW), with a bounded cache on the local disk.
    case s3
}

/// The image store: the disk by default, or an S3-compatible bucket.
public struct ImageStoreSettings: Sendable, Equatable {
    /// Which store.
    public var kind = ImageStoreKind.disk
    /// The bucket, when ``kind`` is ``ImageStoreKind/s3``.
    public var s3 = S3Settings()
    /// The most bytes the local cache of an object store keeps (originals and variants, least recently used out first).
    public var cacheMaxBytes = 512 << 20

    /// The disk.
    public init() {}

    /// Reads `images.store`, `images.cacheMaxBytes` and `images.s3.*`; `environment` supplies the standard `AWS_*`
    /// variables the bucket's settings fall back on.
    init(reader: ConfigReader, environment: [String: String]) throws {
        let kind = reader.string(forKey: "images.store", default: self.kind.rawValue)
        guard let parsed = ImageStoreKind(rawValue: kind.lowercased()) else {
            throw ConfigurationError.invalid(key: "images.store", reason: "must be disk or s3")
        }
        self.kind = parsed
        cacheMaxBytes = reader.int(forKey: "images.cacheMaxBytes", default: cacheMaxBytes)
        s3 = S3Settings(reader: reader, environment: environment)
    }

    /// Checks the values; throws a ``ConfigurationError`` naming the key.
    func validate() throws {
        guard cacheMaxBytes > 0 else { throw ConfigurationError.invalid(key: "images.cacheMaxBytes", reason: "must be positive") }
        if kind == .s3 { try s3.validate() }
    }
}

/// An S3-compatible bucket and how to reach it. TLS is always verified; plain `http` is for a store on loopback.
public struct S3Settings: Sendable, Equatable {
    /// The bucket's name.
    public var bucket = ""
    /// The region requests are signed for (`us-east-1`; `auto` for Cloudflare R2).
    public var region = "us-east-1"
    /// The service's base URL (`https://<account>.r2.cloudflarestorage.com`, `http://127.0.0.1:9000`); nil is AWS S3's
    /// regional endpoint.
    public var endpoint: String?
    /// Whether the bucket goes in the path (`endpoint/bucket/key`, MinIO's default) instead of the host name
    /// (`bucket.endpoint/key`, AWS's).
    public var pathStyle = false
    /// A prefix put before every key (`classtoday/`), to share a bucket.
    public var prefix = ""
    /// The keys requests are signed with.
    public var credentials = AWSCredentials(accessKeyId: "", secretAccessKey: "")
    /// The longest time one request may take, body included.
    public var timeout: Duration = .seconds(10)
    /// When above zero, a public variant is answered with a redirect to a presigned URL of its object, valid this many
    /// seconds, instead of its bytes; zero (the default) serves every image through the server.
    public var presignedRedirectSeconds = 0

    /// No bucket.
    public init() {}

    /// Reads `images.s3.bucket`, `.region`, `.endpoint`, `.pathStyle`, `.prefix`, `.accessKeyId`, `.secretAccessKey`,
    /// `.sessionToken`, `.timeoutSeconds` and `.presignedRedirectSeconds`; region and keys fall back on `AWS_REGION` (or `AWS_DEFAULT_REGION`),
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` in `environment`.
    init(reader: ConfigReader, environment: [String: String]) {
        func setting(_ key: String, _ variable: String, isSecret: Bool = false) -> String? {
            let value = reader.string(forKey: ConfigKey("images.s3.\(key)"), isSecret: isSecret) ?? environment[variable]
            return value.flatMap { $0.isEmpty ? nil : $0 }
        }
        bucket = reader.string(forKey: "images.s3.bucket", default: bucket)
        region = setting("region", "AWS_REGION") ?? environment["AWS_DEFAULT_REGION"] ?? region
        endpoint = reader.string(forKey: "images.s3.endpoint").flatMap { $0.isEmpty ? nil : $0 }
        pathStyle = reader.bool(forKey: "images.s3.pathStyle", default: pathStyle)
        prefix = reader.string(forKey: "images.s3.prefix", default: prefix)
        credentials = AWSCredentials(
            accessKeyId: setting("accessKeyId", "AWS_ACCESS_KEY_ID") ?? "",
            secretAccessKey: setting("secretAccessKey", "AWS_SECRET_ACCESS_KEY", isSecret: true) ?? "",
            sessionToken: setting("sessionToken", "AWS_SESSION_TOKEN", isSecret: true))
        timeout = .seconds(reader.int(forKey: "images.s3.timeoutSeconds", default: 10))
        presignedRedirectSeconds = reader.int(forKey: "images.s3.presignedRedirectSeconds", default: presignedRedirectSeconds)
    }

    /// The service's base URL: ``endpoint`` or AWS S3's regional one.
    public var resolvedEndpoint: String {
        let base = endpoint ?? "https://s3.\(region).amazonaws.com"
        return base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    /// Checks the values; throws a ``ConfigurationError`` naming the key.
    public func validate() throws {
        // S3's bucket naming rules: 3 to 63 lowercase letters, digits, dots and hyphens.
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-".utf8)
        guard (3...63).contains(bucket.utf8.count), bucket.utf8.allSatisfy(allowed.contains) else {
            throw ConfigurationError.invalid(key: "images.s3.bucket", reason: "must be a bucket name (3 to 63 of a-z, 0-9, '.', '-')")
        }
        guard let components = URLComponents(string: resolvedEndpoint), ["http", "https"].contains(components.scheme ?? ""),
              components.host?.isEmpty == false, components.path.isEmpty, components.query == nil
        else { throw ConfigurationError.invalid(key: "images.s3.endpoint", reason: "must be an http(s) URL without path or query") }
        guard !region.isEmpty, !region.contains("/") else { throw ConfigurationError.invalid(key: "images.s3.region", reason: "must be a region name") }
        guard !credentials.accessKeyId.isEmpty, !credentials.secretAccessKey.isEmpty else {
            throw ConfigurationError.invalid(
                key: "images.s3.accessKeyId",
                reason: "images.s3.accessKeyId and images.s3.secretAccessKey (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) are required")
        }
        guard !prefix.hasPrefix("/") else { throw ConfigurationError.invalid(key: "images.s3.prefix", reason: "must not start with '/'") }
        guard timeout > .zero else { throw ConfigurationError.invalid(key: "images.s3.timeoutSeconds", reason: "must be positive") }
        // SigV4 presigned URLs live at most seven days.
        guard (0...604_800).contains(presignedRedirectSeconds) else {
            throw ConfigurationError.invalid(key: "images.s3.presignedRedirectSeconds", reason: "must be 0 to 604800")
        }
    }
}
