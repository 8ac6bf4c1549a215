import ClassTodayCore
import Crypto
import Foundation
import Logging
import NIOPosix

/// Image bytes in an S3-compatible bucket, so that nodes share no disk: originals under `<prefix>originals/ab/<sha256>`
/// and variants under `<prefix>variants/ab/<sha256>.<variant>.<encoding>`, both named by content, so that writing the
/// same object twice (two nodes rendering one variant at once) is harmless. Reads go through a bounded cache on this
/// node's disk. A store that cannot be reached, or that refuses a request, is logged and thrown as
/// ``DomainError/unavailable(_:retryAfterSeconds:)``: a 503 with `Retry-After`.
public struct S3ImageRepository: ImageRepository {
    private let s3: S3Client
    private let cache: ImageFileCache
    private let logger: Logger

    /// What a client is told to wait after the store failed, in seconds.
    static let retryAfterSeconds = 5

    /// A repository over `s3`, caching at most `cacheMaxBytes` in the folder `cacheFolder` (emptied first).
    public init(s3: S3Client, cacheFolder: String, cacheMaxBytes: Int, logger: Logger) throws {
        self.s3 = s3
        self.cache = try ImageFileCache(root: cacheFolder, maxBytes: cacheMaxBytes)
        self.logger = logger
    }

    public func prepare(_ data: Data) async throws -> PreparedBlob {
        let folder = cache.temporaryFolder
        return try await NIOThreadPool.singleton.runIfActive {
            PreparedBlob(sha256: SHA256.hash(data: data).hexString, bytes: data.count,
                         temporaryPath: try DurableFile.writeTemporary(data, in: folder))
        }
    }

    public func commit(_ blob: PreparedBlob) async throws {
        guard DurableFile.isHexDigest(blob.sha256) else { throw DomainError.invalid("sha256", "is not a SHA-256 digest") }
        let path = blob.temporaryPath
        let data = try await NIOThreadPool.singleton.runIfActive { try Data(contentsOf: URL(fileURLWithPath: path)) }
        let key = Self.originalKey(blob.sha256)
        try await store { try await s3.put(key: s3.settings.prefix + key, data: data, contentType: "application/octet-stream") }
        _ = try await cache.adopt(path, bytes: blob.bytes, as: key)
    }

    public func discard(_ blob: PreparedBlob) async {
        try? FileManager.default.removeItem(atPath: blob.temporaryPath)
    }

    public func contains(sha256: String) async throws -> Bool {
        guard DurableFile.isHexDigest(sha256) else { return false }
        return try await store { try await s3.head(key: s3.settings.prefix + Self.originalKey(sha256)) } != nil
    }

    public func originalFile(sha256: String) async throws -> String? {
        guard DurableFile.isHexDigest(sha256) else { return nil }
        return try await cachedFile(Self.originalKey(sha256))
    }

    public func variantFile(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String? {
        guard DurableFile.isHexDigest(sha256) else { return nil }
        return try await cachedFile(Self.variantKey(sha256, variant, encoding))
    }

    public func storeVariant(_ data: Data, sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String {
        guard DurableFile.isHexDigest(sha256) else { throw DomainError.invalid("sha256", "is not a SHA-256 digest") }
        let key = Self.variantKey(sha256, variant, encoding)
        try await store { try await s3.put(key: s3.settings.prefix + key, data: data, contentType: encoding.contentType) }
        return try await keep(data, as: key)
    }

    public func remove(sha256: String) async throws {
        guard DurableFile.isHexDigest(sha256) else { return }
        for key in Self.keys(of: sha256) {
            try await store { try await s3.delete(key: s3.settings.prefix + key) }
            await cache.remove(key)
        }
    }

    /// A presigned URL of the stored variant when ``S3Settings/presignedRedirectSeconds`` is above zero.
    public func temporaryURL(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> TemporaryURL? {
        let seconds = s3.settings.presignedRedirectSeconds
        guard seconds > 0, DurableFile.isHexDigest(sha256) else { return nil }
        let key = Self.variantKey(sha256, variant, encoding)
        // A variant cached here is in the bucket: it was read from there or written there first.
        if await cache.file(for: key) == nil {
            guard try await store({ try await s3.head(key: s3.settings.prefix + key) }) != nil else { return nil }
        }
        return TemporaryURL(url: s3.presignedURL(key: s3.settings.prefix + key, expires: seconds), validSeconds: seconds)
    }

    /// Every key an original and its variants may have, variants first (the original goes last, so that a delete that
    /// stops half way is repeated from the start).
    static func keys(of sha256: String) -> [String] {
        ImageVariant.allCases.flatMap { variant in VariantEncoding.allCases.map { variantKey(sha256, variant, $0) } }
            + [originalKey(sha256)]
    }

    /// `originals/ab/<sha256>`.
    static func originalKey(_ sha256: String) -> String {
        "originals/\(sha256.prefix(2))/\(sha256)"
    }

    /// `variants/ab/<sha256>.<variant>.<encoding>`.
    static func variantKey(_ sha256: String, _ variant: ImageVariant, _ encoding: VariantEncoding) -> String {
        "variants/\(sha256.prefix(2))/\(sha256).\(variant.rawValue).\(encoding.rawValue)"
    }

    /// The cached file of `key`, fetched from the store first when it is not cached; nil when the store has no such key.
    private func cachedFile(_ key: String) async throws -> String? {
        if let path = await cache.file(for: key) { return path }
        switch try await store({ try await s3.get(key: s3.settings.prefix + key) }) {
        case .found(let object): return try await keep(object.data, as: key)
        case .notFound, .notModified: return nil
        }
    }

    /// Writes `data` into the cache as `key` and answers its path.
    private func keep(_ data: Data, as key: String) async throws -> String {
        let folder = cache.temporaryFolder
        let temporary = try await NIOThreadPool.singleton.runIfActive { try DurableFile.writeTemporary(data, in: folder) }
        return try await cache.adopt(temporary, bytes: data.count, as: key)
    }

    /// Runs a request to the store; a failure is logged and becomes a 503 for the client.
    private func store<Value: Sendable>(_ request: () async throws -> Value) async throws -> Value {
        do {
            return try await request()
        } catch let error as ObjectStoreError {
            logger.error("image store request failed", metadata: ["bucket": "\(s3.settings.bucket)", "error": "\(error)"])
            throw DomainError.unavailable("image storage cannot be reached right now; try again later",
                                          retryAfterSeconds: Self.retryAfterSeconds)
        }
    }
}
