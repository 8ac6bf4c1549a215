import Testing
@testable import ClassTodayCore
@testable import ClassTodayTestSupport

/// Seeded random inputs: nothing may crash, results must stay plausible, and
/// scrubbing must be idempotent and leave no location metadata behind.
@Suite("Image parsing fuzz")
struct ImageFuzzTests {
    /// One valid file of each kind.
    static let fixtures: [[UInt8]] = [
        TestImages.jpeg(),
        TestImages.jpeg(byteOrder: .bigEndian, withXMP: true),
        TestImages.png(),
        TestImages.webpLossy(),
        TestImages.webpLossless(),
        TestImages.webpExtended(),
        TestImages.heic(),
        TestImages.heic(largeSize: true),
        TestImages.heif(),
    ]

    /// SplitMix64: small, fast and deterministic.
    struct Random {
        /// The generator state; the seed.
        var state: UInt64

        /// The next 64 random bits.
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A value in `0..<bound` (bound > 0).
        mutating func below(_ bound: Int) -> Int {
            Int(next() % UInt64(bound))
        }

        /// A random byte.
        mutating func byte() -> UInt8 {
            UInt8(truncatingIfNeeded: next())
        }

        /// `count` random bytes.
        mutating func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in byte() }
        }

        /// Mostly random bytes, sometimes the values parsers care about most.
        mutating func interestingByte() -> UInt8 {
            switch below(6) {
            case 0: 0x00
            case 1: 0xFF
            case 2: [0x01, 0x7F, 0x80, 0xD8, 0xD9, 0xDA, 0xE1, 0xC0][below(8)]
            default: byte()
            }
        }
    }

    /// Checks the invariants for one input.
    static func check(_ input: [UInt8]) {
        if let info = ImageInspector.inspect(input) {
            #expect(info.width > 0 && info.height > 0)
        }
        let scrubbed = JPEGLocationScrubber.removingLocation(from: input)
        #expect(scrubbed.count <= input.count)
        #expect(JPEGLocationScrubber.removingLocation(from: scrubbed) == scrubbed)
        #expect(!JPEGLocationScrubber.containsLocationMetadata(scrubbed))
        _ = JPEGLocationScrubber.containsLocationMetadata(input)
        let stripped = WebPMetadataStripper.removingMetadata(from: input)
        #expect(stripped.count <= input.count)
        #expect(WebPMetadataStripper.removingMetadata(from: stripped) == stripped)
    }

    /// Tests: random bytes, with and without format signatures.
    @Test("random bytes, with and without format signatures")
    func randomBytes() {
        var random = Random(state: 0xC1A5_5709_DA40_0001)
        let prefixes: [[UInt8]] = [
            [],
            [0xFF, 0xD8],
            [0xFF, 0xD8, 0xFF],
            ImageInspector.PNG.signature,
            ImageInspector.PNG.signature + [0, 0, 0, 13] + Array("IHDR".utf8),
            Array("RIFF".utf8) + [0xFF, 0, 0, 0] + Array("WEBP".utf8),
            Array("RIFF".utf8) + [0xFF, 0, 0, 0] + Array("WEBPVP8X".utf8),
            [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0],
            [0, 0, 0, 16] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + [0, 0, 0, 1] + Array("meta".utf8),
            [0xFF, 0xD8] + TestImages.jpegSegment(0xE1, Array("Exif\0\0II*\0\u{8}\0\0\0".utf8)),
            [0xFF, 0xD8] + TestImages.jpegSegment(0xE1, Array("Exif\0\0MM\0*\0\0\0\u{8}".utf8)),
        ]
        for _ in 0..<3000 {
            let prefix = prefixes[random.below(prefixes.count)]
            let length = random.below(120)
            var input = prefix
            for _ in 0..<length {
                input.append(random.interestingByte())
            }
            // Fix up the EXIF segment length sometimes so the TIFF parser gets fed.
            if prefix.count > 4, prefix[3] == 0xE1, random.below(2) == 0 {
                let segmentLength = input.count - 4
                if segmentLength <= 0xFFFF {
                    input[4] = UInt8(segmentLength >> 8)
                    input[5] = UInt8(segmentLength & 0xFF)
                }
            }
            Self.check(input)
        }
    }

    /// Tests: random mutations of valid files.
    @Test("random mutations of valid files")
    func mutations() {
        var random = Random(state: 0x5EED_0F_1A6E)
        for fixture in Self.fixtures {
            for _ in 0..<400 {
                var input = fixture
                for _ in 0...random.below(4) {
                    Self.mutate(&input, &random)
                }
                Self.check(input)
            }
        }
    }

    /// Tests: mutations inside the EXIF GPS structure.
    @Test("mutations inside the EXIF GPS structure")
    func exifMutations() {
        var random = Random(state: 42)
        for order in TestImages.ByteOrder.allCases {
            let fixture = TestImages.jpeg(byteOrder: order)
            // The TIFF occupies bytes 12..<(4 + segment length).
            let tiffEnd = 4 + (Int(fixture[4]) << 8 | Int(fixture[5]))
            for _ in 0..<1000 {
                var input = fixture
                for _ in 0...random.below(3) {
                    let index = 12 + random.below(tiffEnd - 12)
                    input[index] = random.interestingByte()
                }
                Self.check(input)
                // Whatever happened to the EXIF, the image itself is untouched.
                let scrubbed = JPEGLocationScrubber.removingLocation(from: input)
                #expect(scrubbed.suffix(fixture.count - tiffEnd) == input.suffix(fixture.count - tiffEnd))
                #expect(ImageInspector.inspect(scrubbed) == ImageInfo(format: .jpeg, width: 8, height: 6))
            }
        }
    }

    /// Applies one random edit: overwrite, insert, delete, truncate or duplicate.
    static func mutate(_ input: inout [UInt8], _ random: inout Random) {
        guard !input.isEmpty else {
            input = random.bytes(random.below(16))
            return
        }
        switch random.below(6) {
        case 0, 1:
            input[random.below(input.count)] = random.interestingByte()
        case 2:
            let index = random.below(input.count + 1)
            input.insert(contentsOf: random.bytes(1 + random.below(8)), at: index)
        case 3:
            let start = random.below(input.count)
            let end = min(input.count, start + 1 + random.below(16))
            input.removeSubrange(start..<end)
        case 4:
            input.removeLast(random.below(input.count))
        default:
            let start = random.below(input.count)
            let end = min(input.count, start + 1 + random.below(32))
            input.insert(contentsOf: input[start..<end], at: random.below(input.count + 1))
        }
    }
}
