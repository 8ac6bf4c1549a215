import Foundation
import Testing
@testable import ClassTodayCore
@testable import ClassTodayTestSupport

/// PNG and WebP originals lose their location as JPEG photos do: the GPS directory of their EXIF, their XMP.
@Suite("PNG and WebP location scrubbing")
struct ImageLocationScrubberTests {
    /// An EXIF TIFF with GPS, in `byteOrder`.
    static func exif(_ byteOrder: TestImages.ByteOrder = .littleEndian, withGPS: Bool = true) -> [UInt8] {
        TestImages.exifTIFF(width: 8, height: 6, withGPS: withGPS, orientation: 6, byteOrder: byteOrder)
    }

    /// An XMP packet naming a place.
    static let xmp = Array(TestImages.xmpPacket.utf8)

    /// Whether `bytes` hold the GPS latitude written by ``exif(_:withGPS:)``.
    static func hasLatitude(_ bytes: [UInt8], _ byteOrder: TestImages.ByteOrder = .littleEndian) -> Bool {
        bytes.firstRange(of: TestImages.latitudeBytes(byteOrder)) != nil
    }

    /// The chunk types of a PNG, in order, each with whether its CRC is right.
    static func pngChunks(_ png: [UInt8]) -> [(type: String, crcValid: Bool)] {
        var chunks: [(String, Bool)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let body = png[(offset + 4)..<(offset + 8 + length)]
            let stored = png[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            chunks.append((String(decoding: body.prefix(4), as: UTF8.self), ImageInspector.PNG.crc32(body) == stored))
            offset += 12 + length
        }
        return chunks
    }

    @Test("a PNG's eXIf loses its GPS directory (both byte orders) with a new CRC; Make and Orientation stay", arguments: [
        TestImages.ByteOrder.littleEndian, .bigEndian,
    ])
    func pngExif(byteOrder: TestImages.ByteOrder) throws {
        let input = TestImages.png(inserting: [TestImages.pngChunk("eXIf", Self.exif(byteOrder))])
        #expect(Self.hasLatitude(input, byteOrder))
        let scrubbed = PNGLocationScrubber.removingLocation(from: input)
        #expect(!Self.hasLatitude(scrubbed, byteOrder))
        #expect(scrubbed.count == input.count, "the chunk keeps its length")
        #expect(scrubbed.firstRange(of: Array(TestImages.make.utf8)) != nil)
        #expect(Self.pngChunks(scrubbed).map(\.type) == ["IHDR", "eXIf", "IDAT", "IEND"])
        #expect(Self.pngChunks(scrubbed).allSatisfy { $0.crcValid })
        #expect(ImageInspector.inspect(scrubbed) == ImageInfo(format: .png, width: 8, height: 6))
        #expect(PNGLocationScrubber.removingLocation(from: scrubbed) == scrubbed)
    }

    @Test("a PNG's XMP and raw EXIF text chunks go, other text stays; anything after IEND goes")
    func pngText() {
        let comment = TestImages.pngChunk("tEXt", Array("Comment\0a class photo".utf8))
        let input = TestImages.png(inserting: [
            TestImages.pngChunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + Self.xmp),
            TestImages.pngChunk("zTXt", Array("Raw profile type exif\0\0".utf8) + [1, 2, 3]),
            comment,
        ], trailer: Array("trailing GPS 37.5665 126.9780".utf8))
        let scrubbed = PNGLocationScrubber.removingLocation(from: input)
        #expect(scrubbed == TestImages.png(inserting: [comment]))
    }

    @Test("a PNG whose eXIf cannot be read loses it; a truncated PNG stops at its last whole chunk; other files pass")
    func pngHostile() {
        let garbage = TestImages.png(inserting: [TestImages.pngChunk("eXIf", [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F])])
        #expect(PNGLocationScrubber.removingLocation(from: garbage) == TestImages.png())
        let whole = TestImages.png(inserting: [TestImages.pngChunk("eXIf", Self.exif())])
        for length in stride(from: 8, to: whole.count, by: 7) {
            let scrubbed = PNGLocationScrubber.removingLocation(from: Array(whole.prefix(length)))
            #expect(!Self.hasLatitude(scrubbed))
            #expect(scrubbed.count <= length)
        }
        let jpeg = TestImages.jpeg(withGPS: true)
        #expect(PNGLocationScrubber.removingLocation(from: jpeg) == jpeg)
    }

    @Test("a WebP's EXIF chunk loses its GPS directory, with or without an Exif header; XMP goes with its flag", arguments: [
        [UInt8](), Array("Exif\0\0".utf8),
    ])
    func webp(exifHeader: [UInt8]) {
        let input = TestImages.webpExtended(metadata: [("EXIF", exifHeader + Self.exif()), ("XMP ", Self.xmp)])
        #expect(Self.hasLatitude(input))
        let scrubbed = WebPLocationScrubber.removingLocation(from: input)
        #expect(!Self.hasLatitude(scrubbed))
        #expect(scrubbed.firstRange(of: Self.xmp) == nil)
        #expect(scrubbed.firstRange(of: Array(TestImages.make.utf8)) != nil)
        #expect(scrubbed[20] == 0x10 | 0x08, "the EXIF flag stays, the XMP flag goes")
        guard case .scrubbed(let tiff) = JPEGLocationScrubber.scrubbedTIFF(Self.exif()) else {
            Issue.record("the EXIF has GPS to scrub")
            return
        }
        #expect(scrubbed == TestImages.webpExtended(metadata: [("EXIF", exifHeader + tiff)]), "nothing else changes")
        #expect(ImageInspector.inspect(scrubbed) == ImageInfo(format: .webp, width: 8, height: 6))
        #expect(WebPLocationScrubber.removingLocation(from: scrubbed) == scrubbed)
    }

    @Test("a WebP without location comes back byte for byte; a broken EXIF goes with its flag")
    func webpUnchangedAndBroken() {
        let plain = TestImages.webpExtended(metadata: [("EXIF", Self.exif(withGPS: false)), ("ICCP", [1, 2, 3, 4])])
        #expect(WebPLocationScrubber.removingLocation(from: plain) == plain)
        let broken = TestImages.webpExtended(metadata: [("EXIF", [0x4D, 0x4D, 0x00, 0x2A, 0x7F, 0xFF, 0xFF, 0xFF])])
        #expect(WebPLocationScrubber.removingLocation(from: broken) == TestImages.webpExtended(metadata: []))
        #expect(WebPLocationScrubber.removingLocation(from: TestImages.png()) == TestImages.png())
    }

    @Test("every format goes through its scrubber; HEIC stays as it came")
    func byFormat() {
        let png = TestImages.png(inserting: [TestImages.pngChunk("eXIf", Self.exif())])
        let webp = TestImages.webpExtended(metadata: [("EXIF", Self.exif())])
        let jpeg = TestImages.jpeg(withGPS: true)
        for (bytes, format) in [(png, ImageFormat.png), (webp, .webp), (jpeg, .jpeg)] {
            #expect(!Self.hasLatitude(Array(ImageLocationScrubber.removingLocation(from: Data(bytes), format: format))), "\(format)")
        }
        let heic = TestImages.heic()
        #expect(ImageLocationScrubber.removingLocation(from: Data(heic), format: .heic) == Data(heic))
    }
}
