import ClassTodayCore
import Foundation
import Logging
import Testing
@testable import ClassTodayServer

/// `classtoday images migrate --to s3` against moto's server.
@Suite("Image store migration", .enabled(if: S3TestServer.isAvailable, S3TestServer.unavailableReason))
struct ImageStoreMigrationTests {
    @Test("copies originals and variants under the object store's keys, verified, resumable, leaving out a corrupt file")
    func migrate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = try DiskImageRepository(root: folder)
        var stored: [String] = []
        for text in ["first image", "second image"] {
            let blob = try await disk.prepare(Data(text.utf8))
            try await disk.commit(blob)
            stored.append(blob.sha256)
        }
        let hashes = stored
        _ = try await disk.storeVariant(Data("thumb".utf8), sha256: hashes[0], variant: .thumb, encoding: .webp)
        // A file whose bytes do not match its name.
        let corrupt = SigV4Signer.hexSHA256(Data("third".utf8))
        try FileManager.default.createDirectory(atPath: (disk.path(sha256: corrupt) as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data("bit rot".utf8).write(to: URL(fileURLWithPath: disk.path(sha256: corrupt)))

        try await S3TestServer.run { server in
            let s3 = S3Client(settings: server.settings(prefix: "p/"))
            // A run that stopped after the first original.
            try await s3.put(key: "p/" + S3ImageRepository.originalKey(hashes[0]), data: Data("first image".utf8), contentType: "x/y")
            let migration = ImageStoreMigration(root: folder, s3: s3)
            let report = try await migration.run()
            #expect(report.copied == 2 && report.alreadyThere == 1)
            #expect(report.mismatched == [disk.path(sha256: corrupt)])
            let keys = try await s3.list(prefix: "p/").keys
            #expect(Set(keys) == Set(["p/" + S3ImageRepository.originalKey(hashes[0]), "p/" + S3ImageRepository.originalKey(hashes[1]),
                                      "p/" + S3ImageRepository.variantKey(hashes[0], .thumb, .webp)]))
            let again = try await migration.run()
            #expect(again.copied == 0 && again.alreadyThere == 3 && again.mismatched.count == 1)

            // The object store reads what was copied.
            let store = try S3ImageRepository(s3: s3, cacheFolder: folder + "-cache", cacheMaxBytes: 1 << 20, logger: .init(label: "test"))
            defer { try? FileManager.default.removeItem(atPath: folder + "-cache") }
            let original = try #require(try await store.originalFile(sha256: hashes[1]))
            #expect(try Data(contentsOf: URL(fileURLWithPath: original)) == Data("second image".utf8))
            let variant = try #require(try await store.variantFile(sha256: hashes[0], variant: .thumb, encoding: .webp))
            #expect(try Data(contentsOf: URL(fileURLWithPath: variant)) == Data("thumb".utf8))
        }
    }
}
