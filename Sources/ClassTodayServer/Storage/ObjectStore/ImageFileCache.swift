import Foundation

/// A bounded cache of image files on this node's disk, in front of an object store: at most `maxBytes`, least recently
/// used out first. It starts empty (a previous run's files are dropped, since nothing vouches for them), so it can be
/// deleted at any time. Files are written outside the actor (on a thread pool) into ``temporaryFolder`` and then adopted,
/// which is a rename.
actor ImageFileCache {
    /// The cache's folder.
    nonisolated let root: URL
    /// The most bytes kept.
    nonisolated let maxBytes: Int
    private var entries: [String: Entry] = [:]
    private var totalBytes = 0
    private var clock: UInt64 = 0

    /// A cached file: its size and when it was last used.
    private struct Entry {
        var bytes: Int
        var lastUse: UInt64
    }

    /// An empty cache in `root`, which is emptied and created.
    init(root: String, maxBytes: Int) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        self.maxBytes = maxBytes
        try? FileManager.default.removeItem(at: self.root)
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
    }

    /// Where files to adopt are written.
    nonisolated var temporaryFolder: URL { root.appendingPathComponent("tmp", isDirectory: true) }

    /// The cached file of `key`, marked as just used; nil when it is not cached.
    func file(for key: String) -> String? {
        guard entries[key] != nil else { return nil }
        clock += 1
        entries[key]?.lastUse = clock
        return path(key)
    }

    /// Moves the temporary file at `temporaryPath` (of `bytes` bytes) into the cache as `key`, evicting the least
    /// recently used files beyond the bound, and answers its path.
    func adopt(_ temporaryPath: String, bytes: Int, as key: String) throws -> String {
        let destination = path(key)
        try DurableFile.move(temporaryPath, to: URL(fileURLWithPath: destination))
        clock += 1
        totalBytes += bytes - (entries[key]?.bytes ?? 0)
        entries[key] = Entry(bytes: bytes, lastUse: clock)
        evict(keeping: key)
        return destination
    }

    /// Drops `key`'s file.
    func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        totalBytes -= entry.bytes
        try? DurableFile.removeIfPresent(path(key))
    }

    /// The bytes cached now.
    var size: Int { totalBytes }

    /// Removes least recently used files until the cache fits, never `kept` (which its caller is about to read).
    /// A reader that opened a removed file keeps reading it: the file system frees it on close.
    private func evict(keeping kept: String) {
        while totalBytes > maxBytes {
            guard let victim = entries.filter({ $0.key != kept }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return }
            remove(victim)
        }
    }

    /// The file of `key`.
    private func path(_ key: String) -> String {
        root.appendingPathComponent(key).path
    }
}
