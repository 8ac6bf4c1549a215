import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging

/// The image stores side by side in one run, on the same files, through ``ImageRepository`` as the server uses it:
/// storing an original (prepare and commit), reading it on a node that has not read it yet (the object store fetches
/// it into an empty cache), and reading it again. The object store is measured when `images.s3.*` names a bucket.
struct ImageStoreBenchmark {
    /// The originals to store.
    let files: [String]
    /// Where the stores keep their files.
    let folder: String
    /// The bucket, when one is configured.
    let s3: S3Settings?

    /// The report's lines: a header and three rows per store.
    func run() async throws -> [String] {
        var lines = ["image stores, \(files.count) originals each                     p50 ms    p99 ms   mean ms"]
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = try DiskImageRepository(root: folder + "/disk")
        lines += try await rows("disk", writer: disk, reader: disk)
        guard let s3 else {
            lines.append("s3: no bucket configured (images.s3.bucket and its keys): only the disk was measured")
            return lines
        }
        func node(_ name: String) throws -> S3ImageRepository {
            try S3ImageRepository(s3: S3Client(settings: s3), cacheFolder: "\(folder)/\(name)", cacheMaxBytes: 1 << 30,
                                  logger: Logger(label: "classtoday.bench.images"))
        }
        let writer = try node("writer")
        lines += try await rows("s3 \(s3.resolvedEndpoint)", writer: writer, reader: try node("reader"))
        for file in files { try await writer.remove(sha256: SigV4Signer.hexSHA256(try Data(contentsOf: URL(fileURLWithPath: file)))) }
        return lines
    }

    /// The rows of one store: originals stored with `writer`, then read twice with `reader`.
    private func rows(_ name: String, writer: any ImageRepository, reader: any ImageRepository) async throws -> [String] {
        var stored = LatencySample(), first = LatencySample(), again = LatencySample()
        var hashes: [String] = []
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let start = ContinuousClock.now
            let blob = try await writer.prepare(data)
            try await writer.commit(blob)
            stored.record(ContinuousClock.now - start)
            hashes.append(blob.sha256)
        }
        for hash in hashes { first.record(try await read(hash, reader)) }
        for hash in hashes { again.record(try await read(hash, reader)) }
        return [row("\(name): store an original", stored), row("\(name): first read on a node", first), row("\(name): read again", again)]
    }

    /// How long reading the original `sha256` takes: finding its file and reading it whole.
    private func read(_ sha256: String, _ store: any ImageRepository) async throws -> Duration {
        let start = ContinuousClock.now
        guard let path = try await store.originalFile(sha256: sha256) else { throw CocoaError(.fileNoSuchFile) }
        _ = try Data(contentsOf: URL(fileURLWithPath: path))
        return ContinuousClock.now - start
    }

    /// A report row.
    private func row(_ name: String, _ sample: LatencySample) -> String {
        String(format: "%@  %8@  %8@  %8@", name.padding(toLength: 52, withPad: " ", startingAt: 0),
               LatencySample.format(sample.percentile(0.5)), LatencySample.format(sample.percentile(0.99)),
               LatencySample.format(sample.mean))
    }
}
