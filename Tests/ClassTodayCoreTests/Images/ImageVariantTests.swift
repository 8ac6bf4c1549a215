import Testing
@testable import ClassTodayCore

@Suite("Image variant negotiation")
struct VariantEncodingTests {
    @Test("WebP only when Accept names image/webp with a non-zero quality", arguments: [
        (nil, VariantEncoding.jpeg),
        ("*/*", .jpeg),
        ("image/*", .jpeg),
        ("image/avif,image/webp,image/apng,*/*;q=0.8", .webp),
        ("IMAGE/WEBP", .webp),
        ("image/jpeg, image/webp;q=0.5", .webp),
        ("image/webp;q=0", .jpeg),
        ("image/webp; q=0.0, */*", .jpeg),
        ("image/webpx", .jpeg),
        ("text/html,image/png", .jpeg),
    ] as [(String?, VariantEncoding)])
    func negotiation(accept: String?, expected: VariantEncoding) {
        #expect(VariantEncoding.negotiated(accept: accept) == expected)
    }

    @Test("boxes grow from thumb to full; HEIC and HEIF are the formats served to others as variants")
    func variants() {
        #expect(ImageVariant.allCases.map(\.boxSide) == [320, 800, 2048])
        #expect(ImageFormat.allCases.filter { !$0.isWidelyDecodable } == [.heic, .heif])
    }
}
