import ClassTodayCore
import Crypto
import Foundation

/// Copies a disk image store into a bucket, under the keys ``S3ImageRepository`` reads: `classtoday images migrate
/// --to s3`. Resumable: an object already in the bucket with the file's size is left alone, so a run that stopped
/// half way is simply run again. Each original's bytes are checked against the SHA-256 that names them before they
/// leave, and every object copied is read back and its SHA-256 compared with the file's.
public struct ImageStoreMigration: Sendable {
    /// The disk store's root folder.
    public let root: String
    /// The bucket.
    public let s3: S3Client

    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Objects written and verified.
        public var copied = 0
        /// Objects already in the bucket with the file's size.
        public var alreadyThere = 0
        /// Files left out because their bytes do not match the hash in their name, or the copy read back differed.
        public var mismatched: [String] = []
    }

    /// A migration of the store at `root` into `s3`'s bucket.
    public init(root: String, s3: S3Client) {
        self.root = root
        self.s3 = s3
    }

    /// Copies every original and variant, calling `progress` after each file with what was done so far.
    public func run(progress: @Sendable (Report) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        for (path, key, sha256) in try files() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            if let expected = sha256, SigV4Signer.hexSHA256(data) != expected {
                report.mismatched.append(path)
            } else if try await s3.head(key: s3.settings.prefix + key) == data.count {
                report.alreadyThere += 1
            } else {
                try await s3.put(key: s3.settings.prefix + key, data: data, contentType: "application/octet-stream")
                guard case .found(let copy) = try await s3.get(key: s3.settings.prefix + key),
                      SigV4Signer.hexSHA256(copy.data) == SigV4Signer.hexSHA256(data)
                else {
                    report.mismatched.append(path)
                    continue
                }
                report.copied += 1
            }
            progress(report)
        }
        return report
    }

    /// The store's files, each with its key and, for an original, the hash its bytes must have: originals first, so
    /// that a variant never reaches the bucket before its original.
    public func files() throws -> [(path: String, key: String, sha256: String?)] {
        let rootURL = URL(fileURLWithPath: root, isDirectory: true)
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var originals: [(String, String, String?)] = [], variants: [(String, String, String?)] = []
        while let relative = enumerator.nextObject() as? String {
            let parts = relative.split(separator: "/")
            guard parts.count == 3, parts[0] != "tmp" else { continue }
            let name = parts[2].split(separator: ".").map(String.init)
            let path = rootURL.appendingPathComponent(relative).path
            guard DurableFile.isHexDigest(name[0]) else { continue }
            if name.count == 1 {
                originals.append((path, S3ImageRepository.originalKey(name[0]), name[0]))
            } else if name.count == 3, let variant = ImageVariant(rawValue: name[1]), let encoding = VariantEncoding(rawValue: name[2]) {
                variants.append((path, S3ImageRepository.variantKey(name[0], variant, encoding), nil))
            }
        }
        return originals.sorted { $0.1 < $1.1 } + variants.sorted { $0.1 < $1.1 }
    }
}
