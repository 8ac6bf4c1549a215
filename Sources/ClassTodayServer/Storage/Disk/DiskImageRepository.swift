import ClassTodayCore
import Crypto
import Foundation

/// Image bytes on the local disk (or a folder shared by several nodes), content-addressed by SHA-256 into a
/// two-level sharded tree: `root/ab/cd/abcd…`. Writes go to `root/tmp/` first, are flushed with `fsync`, and
/// are renamed into place, so that a crash never leaves a half-written image under its name; renaming the same
/// bytes over themselves is harmless, so two nodes storing the same image at once is safe. Variants live beside
/// their original as `abcd….thumb.webp`, written the same way.
public struct DiskImageRepository: ImageRepository {
    /// The root folder.
    public let root: URL

    /// Creates the repository, creating `root` and its temporary folder when missing.
    public init(root: String) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
    }

    private var temporaryFolder: URL { root.appendingPathComponent("tmp", isDirectory: true) }

    public func prepare(_ data: Data) throws -> PreparedBlob {
        let sha256 = SHA256.hash(data: data).hexString
        return PreparedBlob(sha256: sha256, bytes: data.count, temporaryPath: try writeTemporaryFile(data))
    }

    public func commit(_ blob: PreparedBlob) throws {
        let destination = URL(fileURLWithPath: path(sha256: blob.sha256))
        if FileManager.default.fileExists(atPath: destination.path) {
            discard(blob)
            return
        }
        try move(blob.temporaryPath, to: destination)
        Self.synchronizeFolder(destination.deletingLastPathComponent())
    }

    public func variantPath(sha256: String, variant: ImageVariant, encoding: VariantEncoding) -> String {
        path(sha256: sha256) + ".\(variant.rawValue).\(encoding.rawValue)"
    }

    public func storeVariant(_ data: Data, sha256: String, variant: ImageVariant, encoding: VariantEncoding) throws {
        // A variant can be made again, so its folder entry is not flushed; its bytes are, so that a crash never
        // leaves a torn file that would be served as immutable.
        try move(try writeTemporaryFile(data), to: URL(fileURLWithPath: variantPath(sha256: sha256, variant: variant, encoding: encoding)))
    }

    /// Writes `data` to a new file in the temporary folder, flushed to disk, and returns its path.
    private func writeTemporaryFile(_ data: Data) throws -> String {
        let temporary = temporaryFolder.appendingPathComponent("\(UUID().uuidString).part")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return temporary.path
    }

    /// Renames a temporary file to `destination`, creating its folder; the temporary file is gone either way.
    private func move(_ temporaryPath: String, to destination: URL) throws {
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw error
        }
        // rename(2) replaces atomically; a concurrent writer of the same bytes leaves identical content.
        guard rename(temporaryPath, destination.path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    public func discard(_ blob: PreparedBlob) {
        try? FileManager.default.removeItem(atPath: blob.temporaryPath)
    }

    public func contains(sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: path(sha256: sha256))
    }

    public func path(sha256: String) -> String {
        let hex = Self.isHexDigest(sha256) ? sha256 : "invalid"
        let first = hex.prefix(2), second = hex.dropFirst(2).prefix(2)
        return root.appendingPathComponent(String(first)).appendingPathComponent(String(second))
            .appendingPathComponent(hex).path
    }

    public func remove(sha256: String) throws {
        guard Self.isHexDigest(sha256) else { return }
        for variant in ImageVariant.allCases {
            for encoding in VariantEncoding.allCases {
                try Self.removeIfPresent(variantPath(sha256: sha256, variant: variant, encoding: encoding))
            }
        }
        try Self.removeIfPresent(path(sha256: sha256))
    }

    /// Deletes the file at `path`; nothing happens when it is absent.
    private static func removeIfPresent(_ path: String) throws {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch CocoaError.fileNoSuchFile {
            return
        }
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

    /// Whether `text` is 64 lowercase hex digits (never a path).
    private static func isHexDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Flushes a folder's entries so that a rename into it survives power loss.
    private static func synchronizeFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
