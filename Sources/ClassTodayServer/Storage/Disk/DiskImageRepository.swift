import ClassTodayCore
import Crypto
import Foundation
import NIOPosix

/// Image bytes on the local disk (or a folder shared by several nodes), content-addressed by SHA-256 into a
/// two-level sharded tree: `root/ab/cd/abcd…`. Writes go to `root/tmp/` first, are flushed with `fsync`, and
/// are renamed into place, so that a crash never leaves a half-written image under its name; renaming the same
/// bytes over themselves is harmless, so two nodes storing the same image at once is safe. Variants live beside
/// their original as `abcd….thumb.webp`, written the same way. Writes run on NIO's thread pool; the short file-system
/// calls (a rename, a stat, an unlink) run in place.
public struct DiskImageRepository: ImageRepository {
    /// The root folder.
    public let root: URL

    /// Creates the repository, creating `root` and its temporary folder when missing.
    public init(root: String) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
    }

    private var temporaryFolder: URL { root.appendingPathComponent("tmp", isDirectory: true) }

    public func prepare(_ data: Data) async throws -> PreparedBlob {
        let folder = temporaryFolder
        return try await NIOThreadPool.singleton.runIfActive {
            PreparedBlob(sha256: SHA256.hash(data: data).hexString, bytes: data.count,
                         temporaryPath: try DurableFile.writeTemporary(data, in: folder))
        }
    }

    public func commit(_ blob: PreparedBlob) async throws {
        let destination = URL(fileURLWithPath: path(sha256: blob.sha256))
        if FileManager.default.fileExists(atPath: destination.path) {
            await discard(blob)
            return
        }
        try DurableFile.move(blob.temporaryPath, to: destination)
        DurableFile.synchronizeFolder(destination.deletingLastPathComponent())
    }

    public func discard(_ blob: PreparedBlob) async {
        try? FileManager.default.removeItem(atPath: blob.temporaryPath)
    }

    public func contains(sha256: String) async throws -> Bool {
        FileManager.default.fileExists(atPath: path(sha256: sha256))
    }

    public func originalFile(sha256: String) async throws -> String? {
        let path = path(sha256: sha256)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    public func variantFile(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String? {
        let path = variantPath(sha256: sha256, variant: variant, encoding: encoding)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    public func storeVariant(_ data: Data, sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String {
        let (folder, destination) = (temporaryFolder, variantPath(sha256: sha256, variant: variant, encoding: encoding))
        // A variant can be made again, so its folder entry is not flushed; its bytes are, so that a crash never
        // leaves a torn file that would be served as immutable.
        try await NIOThreadPool.singleton.runIfActive {
            try DurableFile.move(try DurableFile.writeTemporary(data, in: folder), to: URL(fileURLWithPath: destination))
        }
        return destination
    }

    public func remove(sha256: String) async throws {
        guard DurableFile.isHexDigest(sha256) else { return }
        for variant in ImageVariant.allCases {
            for encoding in VariantEncoding.allCases {
                try DurableFile.removeIfPresent(variantPath(sha256: sha256, variant: variant, encoding: encoding))
            }
        }
        try DurableFile.removeIfPresent(path(sha256: sha256))
    }

    /// Never: the disk's files are served by the server.
    public func temporaryURL(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> TemporaryURL? {
        nil
    }

    /// The file path of stored bytes (present or not).
    public func path(sha256: String) -> String {
        let hex = DurableFile.isHexDigest(sha256) ? sha256 : "invalid"
        let first = hex.prefix(2), second = hex.dropFirst(2).prefix(2)
        return root.appendingPathComponent(String(first)).appendingPathComponent(String(second))
            .appendingPathComponent(hex).path
    }

    /// The file path of a variant of the stored bytes with this hash (present or not).
    public func variantPath(sha256: String, variant: ImageVariant, encoding: VariantEncoding) -> String {
        path(sha256: sha256) + ".\(variant.rawValue).\(encoding.rawValue)"
    }

    /// Removes temporary files left by a crash that are older than `age`.
    public func removeStaleTemporaryFiles(olderThan age: TimeInterval) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder.path)) ?? []
        for name in names {
            let file = temporaryFolder.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate]) as? Date
            if let modified, modified < Date().addingTimeInterval(-age) {
                try? FileManager.default.removeItem(at: file)
            }
        }
    }
}
