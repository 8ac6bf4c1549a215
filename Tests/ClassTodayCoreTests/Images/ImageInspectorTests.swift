import Foundation
import Testing
@testable import ClassTodayCore
@testable import ClassTodayTestSupport

/// Suite: ImageInspector.
@Suite("ImageInspector")
struct ImageInspectorTests {
    /// A width/height pair for parameterized tests.
    struct Size: Sendable, CustomTestStringConvertible {
        /// Width in pixels.
        let width: Int
        /// Height in pixels.
        let height: Int
        /// `WxH`, shown in test results.
        var testDescription: String { "\(width)x\(height)" }
        /// Creates a size.
        init(_ width: Int, _ height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Tests: format metadata.
    @Test("format metadata")
    func formatMetadata() throws {
        #expect(ImageFormat.allCases.map(\.contentType) == ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"])
        #expect(ImageFormat.allCases.map(\.fileExtension) == ["jpg", "png", "webp", "heic", "heif"])
        let info = ImageInfo(format: .webp, width: 3, height: 4)
        let decoded = try JSONDecoder().decode(ImageInfo.self, from: JSONEncoder().encode(info))
        #expect(decoded == info)
    }

    /// Tests: JPEG dimensions.
    @Test("JPEG dimensions", arguments: [Size(1, 1), Size(8, 6), Size(640, 480), Size(4032, 3024), Size(1, 65535), Size(65535, 65535)])
    func jpeg(size: Size) {
        let expected = ImageInfo(format: .jpeg, width: size.width, height: size.height)
        for order in TestImages.ByteOrder.allCases {
            #expect(ImageInspector.inspect(TestImages.jpeg(width: size.width, height: size.height, byteOrder: order)) == expected)
        }
        #expect(ImageInspector.inspect(TestImages.jpeg(width: size.width, height: size.height, withEXIF: false)) == expected)
        #expect(ImageInspector.inspect(TestImages.jpeg(width: size.width, height: size.height, withXMP: true)) == expected)
    }

    /// Tests: PNG dimensions.
    @Test("PNG dimensions", arguments: [Size(1, 1), Size(8, 6), Size(300, 200), Size(1, 1000), Size(0x7FFF_FFFF, 1), Size(5, 0x7FFF_FFFF)])
    func png(size: Size) {
        #expect(ImageInspector.inspect(TestImages.png(width: size.width, height: size.height))
            == ImageInfo(format: .png, width: size.width, height: size.height))
    }

    /// Tests: WebP lossy (VP8, 14-bit) dimensions.
    @Test("WebP lossy (VP8, 14-bit) dimensions", arguments: [Size(1, 1), Size(8, 6), Size(1920, 1080), Size(16383, 1), Size(16383, 16383)])
    func webpLossy(size: Size) {
        #expect(ImageInspector.inspect(TestImages.webpLossy(width: size.width, height: size.height))
            == ImageInfo(format: .webp, width: size.width, height: size.height))
    }

    /// Tests: WebP lossless (VP8L, 14-bit minus one) dimensions.
    @Test("WebP lossless (VP8L, 14-bit minus one) dimensions", arguments: [Size(1, 1), Size(8, 6), Size(16383, 2), Size(1, 16384), Size(16384, 16384)])
    func webpLossless(size: Size) {
        for alpha in [false, true] {
            #expect(ImageInspector.inspect(TestImages.webpLossless(width: size.width, height: size.height, alpha: alpha))
                == ImageInfo(format: .webp, width: size.width, height: size.height))
        }
    }

    /// Tests: WebP extended (VP8X, 24-bit minus one) dimensions.
    @Test("WebP extended (VP8X, 24-bit minus one) dimensions", arguments: [Size(1, 1), Size(8, 6), Size(16383, 16383), Size(16385, 3), Size(1 << 24, 1), Size(1 << 24, 1 << 24)])
    func webpExtended(size: Size) {
        #expect(ImageInspector.inspect(TestImages.webpExtended(width: size.width, height: size.height))
            == ImageInfo(format: .webp, width: size.width, height: size.height))
    }

    /// Tests: HEIC dimensions from the primary item's ispe.
    @Test("HEIC dimensions from the primary item's ispe", arguments: [Size(1, 1), Size(8, 6), Size(4032, 3024), Size(0xFFFF_FFFF, 1)])
    func heic(size: Size) {
        let expected = ImageInfo(format: .heic, width: size.width, height: size.height)
        #expect(ImageInspector.inspect(TestImages.heic(width: size.width, height: size.height)) == expected)
        #expect(ImageInspector.inspect(TestImages.heic(width: size.width, height: size.height, largeSize: true)) == expected)
        #expect(ImageInspector.inspect(TestImages.heic(width: size.width, height: size.height, thumbnail: nil)) == expected)
        #expect(ImageInspector.inspect(TestImages.heif(width: size.width, height: size.height))
            == ImageInfo(format: .heif, width: size.width, height: size.height))
    }

    /// Tests: HEIF brand decides heic vs heif.
    @Test("HEIF brand decides heic vs heif")
    func heifBrands() {
        for brand in ["heic", "heix", "hevc", "hevx", "heim", "heis"] {
            #expect(ImageInspector.inspect(TestImages.heic(majorBrand: brand, compatibleBrands: []))?.format == .heic, "\(brand)")
        }
        for brand in ["mif1", "msf1"] {
            #expect(ImageInspector.inspect(TestImages.heic(majorBrand: brand, compatibleBrands: ["mif1"]))?.format == .heif, "\(brand)")
            #expect(ImageInspector.inspect(TestImages.heic(majorBrand: brand, compatibleBrands: ["mif1", "heic"]))?.format == .heic, "\(brand)")
        }
        for brand in ["avif", "isom", "mp42", "qt  ", "crx "] {
            #expect(ImageInspector.inspect(TestImages.heic(majorBrand: brand, compatibleBrands: ["mif1", "heic"])) == nil, "\(brand)")
        }
    }

    /// Tests: HEIC primary item wins over a larger ispe; without pitm the largest is used.
    @Test("HEIC primary item wins over a larger ispe; without pitm the largest is used")
    func heicPrimarySelection() {
        let bigThumbnail = TestImages.heic(width: 100, height: 50, thumbnail: (4000, 3000))
        #expect(ImageInspector.inspect(bigThumbnail) == ImageInfo(format: .heic, width: 100, height: 50))
        let noPrimary = TestImages.heic(width: 100, height: 50, thumbnail: (4000, 3000), primaryItem: false)
        #expect(ImageInspector.inspect(noPrimary) == ImageInfo(format: .heic, width: 4000, height: 3000))
    }

    /// Tests: JPEG marker walking: fill bytes, restart markers, progressive and lossless frames.
    @Test("JPEG marker walking: fill bytes, restart markers, progressive and lossless frames")
    func jpegMarkerVariants() {
        let soi: [UInt8] = [0xFF, 0xD8]
        let sof0 = TestImages.jpegSegment(0xC0, [8, 0, 6, 0, 8, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        let com = TestImages.jpegSegment(0xFE, Array("made for tests".utf8))
        #expect(ImageInspector.inspect(soi + [0xFF, 0xFF, 0xFF] + com + [0xFF] + sof0) == ImageInfo(format: .jpeg, width: 8, height: 6))
        #expect(ImageInspector.inspect(soi + [0xFF, 0xD0] + sof0) == ImageInfo(format: .jpeg, width: 8, height: 6))
        for marker: UInt8 in [0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF] {
            var file = soi + sof0
            file[3] = marker
            #expect(ImageInspector.inspect(file) == ImageInfo(format: .jpeg, width: 8, height: 6), "SOF \(marker)")
        }
        // DHT, JPG and DAC share the C0...CF range but are not frame headers.
        for marker: UInt8 in [0xC4, 0xC8, 0xCC] {
            var file = soi + sof0
            file[3] = marker
            #expect(ImageInspector.inspect(file) == nil, "marker \(marker)")
        }
    }

    /// Tests: malformed JPEGs are rejected.
    @Test("malformed JPEGs are rejected")
    func malformedJPEG() {
        let soi: [UInt8] = [0xFF, 0xD8]
        let sof0 = TestImages.jpegSegment(0xC0, [8, 0, 6, 0, 8, 1, 1, 0x11, 0])
        let sos = TestImages.jpegSegment(0xDA, [1, 1, 0, 0, 63, 0])
        #expect(ImageInspector.inspect(soi + sos + sof0) == nil) // scan before frame
        #expect(ImageInspector.inspect(soi + [0xFF, 0xD9] + sof0) == nil) // EOI before frame
        #expect(ImageInspector.inspect(soi + [0xFF, 0xD8] + sof0) == nil) // second SOI
        #expect(ImageInspector.inspect(soi + [0xFF, 0x00] + sof0) == nil) // stuffed byte outside a scan
        #expect(ImageInspector.inspect(soi + [0x00] + sof0) == nil) // garbage between segments
        #expect(ImageInspector.inspect(soi + [0xFF, 0xE0, 0x00, 0x01] + sof0) == nil) // length < 2
        #expect(ImageInspector.inspect(soi + [0xFF, 0xE0, 0xFF, 0xFF, 0x00]) == nil) // length past the end
        #expect(ImageInspector.inspect(soi + TestImages.jpegSegment(0xC0, [8, 0, 0, 0, 8, 1, 1, 0x11, 0])) == nil) // height 0
        #expect(ImageInspector.inspect(soi + TestImages.jpegSegment(0xC0, [8, 0, 6, 0, 0, 1, 1, 0x11, 0])) == nil) // width 0
        #expect(ImageInspector.inspect(soi + TestImages.jpegSegment(0xC0, [8, 0, 6, 0, 8, 0])) == nil) // no components
        #expect(ImageInspector.inspect(soi + TestImages.jpegSegment(0xC0, [8, 0, 6, 0, 8, 3, 1, 0x11, 0])) == nil) // short component list
    }

    /// Tests: malformed PNG, WebP and HEIF headers are rejected.
    @Test("malformed PNG, WebP and HEIF headers are rejected")
    func malformedOthers() {
        var png = TestImages.png()
        png[30] ^= 0x01 // IHDR CRC
        #expect(ImageInspector.inspect(png) == nil)
        #expect(ImageInspector.inspect(TestImages.png(width: 0, height: 5).withFixedIHDRCRC()) == nil)
        var wide = TestImages.png(width: 1, height: 1)
        wide.replaceSubrange(16..<20, with: [0x80, 0, 0, 0]) // width 2^31
        #expect(ImageInspector.inspect(wide.withFixedIHDRCRC()) == nil)
        var bitDepth = TestImages.png()
        bitDepth[24] = 3
        #expect(ImageInspector.inspect(bitDepth.withFixedIHDRCRC()) == nil)

        var interFrame = TestImages.webpLossy()
        interFrame[20] |= 1 // not a key frame
        #expect(ImageInspector.inspect(interFrame) == nil)
        var startCode = TestImages.webpLossy()
        startCode[24] = 0
        #expect(ImageInspector.inspect(startCode) == nil)
        #expect(ImageInspector.inspect(TestImages.webpLossy(width: 0, height: 4)) == nil)
        var version = TestImages.webpLossless()
        version[24] |= 0x20 // VP8L version 1
        #expect(ImageInspector.inspect(version) == nil)
        var unknownChunk = TestImages.webpLossless()
        unknownChunk.replaceSubrange(12..<16, with: Array("ALPH".utf8))
        #expect(ImageInspector.inspect(unknownChunk) == nil)
        var oversizedChunk = TestImages.webpLossless()
        oversizedChunk.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(ImageInspector.inspect(oversizedChunk) == nil)

        #expect(ImageInspector.inspect(TestImages.heic(width: 0, height: 5, thumbnail: nil)) == nil)
        var hugeBox = TestImages.heic()
        let metaStart = Int(hugeBox[3]) // ftyp is < 256 bytes
        hugeBox.replaceSubrange(metaStart..<(metaStart + 4), with: [0x7F, 0xFF, 0xFF, 0xFF])
        #expect(ImageInspector.inspect(hugeBox) == nil)
        var largeHuge = TestImages.heic(largeSize: true)
        largeHuge.replaceSubrange((metaStart + 8)..<(metaStart + 16), with: [UInt8](repeating: 0xFF, count: 8))
        #expect(ImageInspector.inspect(largeHuge) == nil)
        var tinyBox = TestImages.heic()
        tinyBox.replaceSubrange(metaStart..<(metaStart + 4), with: [0, 0, 0, 7])
        #expect(ImageInspector.inspect(tinyBox) == nil)
        // ftyp not first.
        #expect(ImageInspector.inspect(TestImages.box("free", []) + TestImages.heic()) == nil)
    }

    /// Tests: not images: text, other formats, empty input.
    @Test("not images: text, other formats, empty input")
    func notImages() {
        let texts = [
            "",
            "hello",
            "This is definitely a JPEG file, trust me.",
            "GIF89a\u{1}\u{0}\u{1}\u{0}",
            "BM6\u{0}\u{0}\u{0}",
            "II*\u{0}\u{8}\u{0}\u{0}\u{0}",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>",
            "%PDF-1.7",
            "RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ",
            "\u{0}\u{0}\u{0}\u{18}ftypmp42\u{0}\u{0}\u{0}\u{0}mp42isom",
        ]
        for text in texts {
            #expect(ImageInspector.inspect(Array(text.utf8)) == nil, "\(text)")
        }
        // A text file whose first bytes look like a JPEG (SOI, then text).
        #expect(ImageInspector.inspect([0xFF, 0xD8] + Array("JFIF but actually a shopping list".utf8)) == nil)
        #expect(ImageInspector.inspect([0xFF, 0xD8, 0xFF, 0xE0] + Array("JFIF\u{0} and then some words".utf8)) == nil)
        // Latin-1 "ÿØÿà" at the start of a text file.
        #expect(ImageInspector.inspect(Array("ÿØÿà text".unicodeScalars.map { UInt8($0.value) })) == nil)
    }

    /// Tests: accepts Data, ArraySlice and other byte collections.
    @Test("accepts Data, ArraySlice and other byte collections")
    func collections() {
        let bytes = TestImages.png(width: 7, height: 9)
        let expected = ImageInfo(format: .png, width: 7, height: 9)
        #expect(ImageInspector.inspect(Data(bytes)) == expected)
        #expect(ImageInspector.inspect(([0, 0] + bytes)[2...]) == expected)
        #expect(ImageInspector.inspect(Data([0, 0] + bytes).dropFirst(2)) == expected)
    }

    /// Tests: every prefix of every fixture is rejected or read correctly.
    @Test("every prefix of every fixture is rejected or read correctly")
    func prefixes() {
        for fixture in ImageFuzzTests.fixtures {
            let expected = ImageInspector.inspect(fixture)
            #expect(expected != nil)
            var firstGood: Int?
            for length in 0...fixture.count {
                let result = ImageInspector.inspect(fixture.prefix(length))
                #expect(result == nil || result == expected, "prefix \(length)")
                if result != nil, firstGood == nil {
                    firstGood = length
                }
                // Once the header is complete, longer prefixes stay readable.
                if let firstGood, length >= firstGood {
                    #expect(result == expected, "prefix \(length)")
                }
            }
        }
    }
}

fileprivate extension [UInt8] {
    /// A PNG with the IHDR CRC recomputed after editing the IHDR fields.
    func withFixedIHDRCRC() -> [UInt8] {
        var copy = self
        copy.replaceSubrange(29..<33, with: TestImages.be32(ImageInspector.PNG.crc32(copy[12..<29])))
        return copy
    }
}
