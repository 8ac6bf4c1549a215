import Foundation

/// An uploaded image: who uploaded it and which stored bytes it names.
public struct ImageRecord: Sendable, Hashable {
    /// Opaque identifier, used in URLs.
    public let id: String
    /// Hex SHA-256 of the stored bytes, which names the file in the ``ImageRepository``.
    public let sha256: String
    /// Its format, decided by its bytes.
    public let format: ImageFormat
    /// The stored size in bytes.
    public let bytes: Int
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The user who uploaded it.
    public let uploaderId: String
    /// When it was uploaded.
    public let createdAt: Date

    /// Creates a record.
    public init(id: String, sha256: String, format: ImageFormat, bytes: Int, width: Int, height: Int,
                uploaderId: String, createdAt: Date) {
        self.id = id
        self.sha256 = sha256
        self.format = format
        self.bytes = bytes
        self.width = width
        self.height = height
        self.uploaderId = uploaderId
        self.createdAt = createdAt
    }
}

/// Bytes written to a temporary file on this node, ready to be committed under their hash.
public struct PreparedBlob: Sendable, Hashable {
    /// Hex SHA-256 of the bytes.
    public let sha256: String
    /// Size in bytes.
    public let bytes: Int
    /// The temporary file holding them.
    public let temporaryPath: String

    /// Creates a prepared blob.
    public init(sha256: String, bytes: Int, temporaryPath: String) {
        self.sha256 = sha256
        self.bytes = bytes
        self.temporaryPath = temporaryPath
    }
}

/// Content-addressed storage of image bytes: originals named by their SHA-256, and the variants made from them.
/// Two implementations: the local disk and an S3-compatible object store. Writing is two steps so that the slow step
/// can run before a database transaction: ``prepare(_:)`` writes and flushes a temporary file, ``commit(_:)`` (inside
/// the transaction that records the image) stores it under its hash, or drops it when the same bytes are there. Reads
/// answer a file on this node's disk, so that the bytes stream out and the renderer reads them in place: the disk's
/// own file, or the object store's copy in its local cache. A store that cannot be reached throws
/// ``DomainError/unavailable(_:retryAfterSeconds:)``.
public protocol ImageRepository: Sendable {
    /// Writes `data` to a temporary file and flushes it to disk.
    func prepare(_ data: Data) async throws -> PreparedBlob
    /// Makes prepared bytes readable under their hash; the same bytes committed twice are stored once.
    func commit(_ blob: PreparedBlob) async throws
    /// Removes a prepared blob that will not be committed.
    func discard(_ blob: PreparedBlob) async
    /// Whether bytes with this hash are stored.
    func contains(sha256: String) async throws -> Bool
    /// A local file holding the stored bytes with this hash, nil when none are stored.
    func originalFile(sha256: String) async throws -> String?
    /// A local file holding the variant of the original with this hash, nil when it is not stored (yet).
    func variantFile(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String?
    /// Stores the encoded bytes of a variant of the original with this hash, atomically (a reader sees the whole
    /// variant or none; storing the same variant twice keeps one), and answers a local file holding it.
    func storeVariant(_ data: Data, sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String
    /// Deletes stored bytes and their variants; nothing happens when they are absent.
    func remove(sha256: String) async throws
    /// A short-lived URL from which anyone may fetch the stored variant directly, when the store offers them (an
    /// object store configured to) and the variant is stored; nil otherwise.
    func temporaryURL(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> TemporaryURL?
}

/// A URL valid for a while.
public struct TemporaryURL: Sendable, Hashable {
    /// The URL.
    public let url: String
    /// For how many seconds from now it is valid.
    public let validSeconds: Int

    /// Creates a temporary URL.
    public init(url: String, validSeconds: Int) {
        self.url = url
        self.validSeconds = validSeconds
    }
}

/// Who may do what with an image.
public enum ImageRules {
    /// Throws ``DomainError/forbidden(_:)`` unless `userId` uploaded `record`.
    public static func checkDeletion(of record: ImageRecord, by userId: String) throws(DomainError) {
        guard record.uploaderId == userId else { throw .forbidden("only the uploader may delete this image") }
    }
}

/// Stores image records, keeping their files in an ``ImageRepository``. Implementations are named after their backend.
public protocol ImageRecordRepository: Sendable {
    /// Records `record` and commits its prepared bytes, in one transaction.
    func create(_ record: ImageRecord, blob: PreparedBlob) async throws
    /// The record with this id.
    func record(id: String) async throws -> ImageRecord?
    /// Deletes an image for `userId` (its uploader): it leaves any class and profile that showed it.
    func delete(id: String, by userId: String) async throws
    /// Removes images that nothing references (no class, profile or chat message) and that were uploaded
    /// before `cutoff` (by `uploaderId` only, when given), then the stored bytes no record names any more. Returns
    /// how many records and files went (files whose removal failed are queued and tried again later).
    func collectGarbage(uploadedBefore cutoff: Date, by uploaderId: String?) async throws -> (records: Int, files: Int)
    /// Tries again to remove the stored bytes whose removal failed and is due at `now` (the store was unreachable);
    /// returns how many went. A removal that fails again stays queued for later: none is ever forgotten.
    func removeQueuedFiles(now: Date) async throws -> Int
}

extension ImageRecordRepository {
    /// Removes the images that nothing references any more, uploaded before `cutoff` by anyone.
    @discardableResult
    public func collectGarbage(uploadedBefore cutoff: Date) async throws -> (records: Int, files: Int) {
        try await collectGarbage(uploadedBefore: cutoff, by: nil)
    }
}
