import Testing
@testable import ClassTodayCore
@testable import ClassTodayTestSupport

@Suite("WebP metadata stripping")
struct WebPMetadataStripperTests {
    /// A RIFF WebP of `chunks`, each padded to an even length.
    static func webp(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var body = Array("WEBP".utf8)
        for (name, payload) in chunks {
            body += Array(name.utf8) + TestImages.le24(payload.count) + [0] + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        return Array("RIFF".utf8) + TestImages.le24(body.count) + [0] + body
    }

    @Test("EXIF, XMP and ICC chunks go with their VP8X flags; the picture chunks stay byte for byte")
    func strips() {
        let header: [UInt8] = [0x10 | 0x20 | 0x08 | 0x04, 0, 0, 0, 7, 0, 0, 5, 0, 0]
        let picture: [UInt8] = [1, 2, 3, 4, 5]
        let alpha: [UInt8] = [9, 9, 9]
        let input = Self.webp([("VP8X", header), ("ICCP", [7, 7, 7, 7]), ("ALPH", alpha), ("VP8 ", picture),
                               ("EXIF", Array("Exif\0\0MM".utf8)), ("XMP ", Array("<x:xmpmeta/>".utf8))])
        let expected = Self.webp([("VP8X", [0x10, 0, 0, 0, 7, 0, 0, 5, 0, 0]), ("ALPH", alpha), ("VP8 ", picture)])
        #expect(WebPMetadataStripper.removingMetadata(from: input) == expected)
        #expect(WebPMetadataStripper.removingMetadata(from: expected) == expected)
    }

    @Test("anything that is not a well-formed WebP comes back unchanged")
    func leavesOthers() {
        let jpeg = TestImages.jpeg()
        #expect(WebPMetadataStripper.removingMetadata(from: jpeg) == jpeg)
        let truncated = Array(Self.webp([("VP8X", [0, 0, 0, 0, 7, 0, 0, 5, 0, 0]), ("EXIF", [1, 2, 3, 4])]).dropLast(3))
        #expect(WebPMetadataStripper.removingMetadata(from: truncated) == truncated)
    }
}
