import Foundation

/// The file steps both image stores share: a temporary file written (and flushed) in full, then renamed into place, so
/// that a reader never sees part of a file under its final name.
enum DurableFile {
    /// Writes `data` to a new file in `folder`, flushed to disk, and returns its path.
    static func writeTemporary(_ data: Data, in folder: URL) throws -> String {
        let temporary = folder.appendingPathComponent("\(UUID().uuidString).part")
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
    static func move(_ temporaryPath: String, to destination: URL) throws {
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

    /// Deletes the file at `path`; nothing happens when it is absent.
    static func removeIfPresent(_ path: String) throws {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch CocoaError.fileNoSuchFile {
            return
        }
    }

    /// Flushes a folder's entries so that a rename into it survives power loss.
    static func synchronizeFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Whether `text` is 64 lowercase hex digits (never a path).
    static func isHexDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
