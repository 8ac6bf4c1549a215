import ClassTodayCore
import Foundation
import Testing
@testable import ClassTodayServer
@testable import ClassTodayTestSupport

/// The libvips decoder path under truncated, mutated and hostile files: every render ends, in variant bytes that
/// decode or in a ``VipsImageRenderer/Failure``, never in a crash or a hang.
@Suite("Image variant fuzz", .timeLimit(.minutes(3)),
       .enabled(if: TestVips.isAvailable, "needs libvips (apt-get install libvips42, or CLASSTODAY_IMAGES_VIPS_LIBRARY naming it)"))
struct VariantFuzzTests {
    /// Real files of every accepted format, and the structural fixtures of the image parsing fuzz tests.
    static func fixtures() throws -> [[UInt8]] {
        [
            try RealImages.photo(width: 120, height: 90, orientation: 6),
            try RealImages.photo(width: 64, height: 48, format: "png"),
            try RealImages.photo(width: 64, height: 48, format: "webp"),
            try RealImages.photo(width: 64, height: 48, format: "heic"),
            TestImages.jpeg(), TestImages.png(), TestImages.webpLossy(), TestImages.webpLossless(), TestImages.webpExtended(),
            TestImages.heic(), TestImages.heif(),
        ]
    }

    /// Renders `input` from a file and checks what comes back.
    static func check(_ input: [UInt8], renderer: VipsImageRenderer, folder: URL) throws {
        let file = folder.appendingPathComponent(UUID().uuidString)
        try Data(input).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for encoding in VariantEncoding.allCases {
            do {
                let output = try renderer.render(file: file.path, variant: .thumb, encoding: encoding)
                let decoded = try RealImages.decode(Array(output))
                #expect(decoded.width <= 320 && decoded.height <= 320 && decoded.width > 0)
                #expect(decoded.metadata.isEmpty)
            } catch let failure as VipsImageRenderer.Failure {
                if case .tooManyPixels(let width, let height, _) = failure { #expect(width * height > renderer.maxPixels) }
            }
        }
    }

    static func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    @Test("every truncation of real files of each format")
    func truncations() throws {
        let renderer = VipsImageRenderer(maxPixels: 50_000_000)
        try Self.withFolder { folder in
            for fixture in try Self.fixtures() {
                let step = max(1, fixture.count / 24)
                for length in stride(from: 0, to: fixture.count, by: step) {
                    try Self.check(Array(fixture.prefix(length)), renderer: renderer, folder: folder)
                }
            }
        }
    }

    @Test("seeded random byte edits of real files")
    func mutations() throws {
        let renderer = VipsImageRenderer(maxPixels: 50_000_000)
        var random = SeededRandom(seed: 0x1A6E_5EED)
        try Self.withFolder { folder in
            for fixture in try Self.fixtures() {
                for _ in 0..<20 {
                    var input = fixture
                    for _ in 0..<Int.random(in: 1...8, using: &random) {
                        let index = Int.random(in: 0..<input.count, using: &random)
                        input[index] = [0x00, 0xFF, UInt8.random(in: 0...255, using: &random)][Int.random(in: 0...2, using: &random)]
                    }
                    try Self.check(input, renderer: renderer, folder: folder)
                }
            }
        }
    }

    @Test("hostile headers: huge declared sizes are refused before decoding; other formats' bytes are not decoded")
    func hostile() throws {
        let renderer = VipsImageRenderer(maxPixels: 1_000_000)
        try Self.withFolder { folder in
            let bombs = [TestImages.png(width: 60000, height: 60000), TestImages.jpeg(width: 65000, height: 65000),
                         TestImages.webpLossless(width: 16384, height: 16384)]
            for bomb in bombs {
                let file = folder.appendingPathComponent(UUID().uuidString)
                try Data(bomb).write(to: file)
                #expect(throws: VipsImageRenderer.Failure.self) {
                    try renderer.render(file: file.path, variant: .thumb, encoding: .jpeg)
                }
            }
            let png = TestImages.png(width: 60000, height: 60000)
            let file = folder.appendingPathComponent("bomb")
            try Data(png).write(to: file)
            #expect(throws: VipsImageRenderer.Failure.tooManyPixels(width: 60000, height: 60000, limit: 1_000_000)) {
                try renderer.render(file: file.path, variant: .full, encoding: .webp)
            }
            // Text, a GIF and an SVG (formats the server never accepts) go through the same path without harm.
            for other in ["plain text\n", "GIF89a\u{01}\u{00}\u{01}\u{00}", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"99999\" height=\"99999\"/>"] {
                try Self.check(Array(other.utf8), renderer: renderer, folder: folder)
            }
        }
    }
}
