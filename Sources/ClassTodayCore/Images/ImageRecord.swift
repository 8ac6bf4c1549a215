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

/// Bytes written to a temporary file and flushed to disk, ready to be committed under their hash.
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

/// Content-addressed storage of image bytes. Writing is two steps so that the cheap step can run inside a
/// database transaction: ``prepare(_:)`` writes and flushes a temporary file, ``commit(_:)`` moves it under its
/// hash (or drops it when the same bytes are already stored). The methods block on file I/O: call them off the
/// event loops.
public protocol ImageRepository: Sendable {
    /// Writes `data` to a temporary file and flushes it to disk.
    func prepare(_ data: Data) throws -> PreparedBlob
    /// Makes prepared bytes readable under their hash; the same bytes committed twice are stored once.
    func commit(_ blob: PreparedBlob) throws
    /// Removes a prepared blob that will not be committed.
    func discard(_ blob: PreparedBlob)
    /// Whether bytes with this hash are stored.
    func contains(sha256: String) -> Bool
    /// The file path of stored bytes, for streaming them out.
    func path(sha256: String) -> String
    /// Deletes stored bytes and their variants; nothing happens when they are absent.
    func remove(sha256: String) throws
    /// The file path of a variant of the stored bytes with this hash (present or not).
    func variantPath(sha256: String, variant: ImageVariant, encoding: VariantEncoding) -> String
    /// Stores the encoded bytes of a variant of the original with this hash, atomically (a reader sees the whole
    /// file or none); storing the same variant twice keeps one.
    func storeVariant(_ data: Data, sha256: String, variant: ImageVariant, encoding: VariantEncoding) throws
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
    /// how many records and files went.
    func collectGarbage(uploadedBefore cutoff: Date, by uploaderId: String?) async throws -> (records: Int, files: Int)
}

extension ImageRecordRepository {
    /// Removes the images that nothing references any more, uploaded before `cutoff` by anyone.
    @discardableResult
    public func collectGarbage(uploadedBefore cutoff: Date) async throws -> (records: Int, files: Int) {
        try await collectGarbage(uploadedBefore: cutoff, by: nil)
    }
}
