import CVips
import Foundation
import Testing
@testable import ClassTodayServer

/// Real, decodable images made and read with libvips in the test, so that no binary fixture is committed.
enum RealImages {
    /// Whether libvips is loaded for the helpers (``TestVips``; the server loads it the same way).
    private static var started: Bool { TestVips.isAvailable }

    /// The camera maker written into ``photo(width:height:orientation:)``'s EXIF.
    static let make = "ClassToday Test Camera"
    /// The XMP packet written into ``photo(width:height:orientation:)``.
    static let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>"#

    /// A `width` x `height` image whose left half is red and right half blue, with an EXIF orientation, a camera
    /// maker and an XMP packet, encoded as `format` ("jpeg", "png", "heic" or "webp").
    static func photo(width: Int, height: Int, orientation: Int = 1, format: String = "jpeg") throws -> [UInt8] {
        try #require(started)
        var left: OpaquePointer?, right: OpaquePointer?, joined: OpaquePointer?
        #expect(ct_vips_solid(&left, Int32(width / 2), Int32(height), 255, 0, 0) == 0)
        #expect(ct_vips_solid(&right, Int32(width - width / 2), Int32(height), 0, 0, 255) == 0)
        defer { ct_vips_release(left); ct_vips_release(right); ct_vips_release(joined) }
        let leftHalf = try #require(left), rightHalf = try #require(right)
        #expect(ct_vips_join_horizontally(leftHalf, rightHalf, &joined) == 0)
        let image = try #require(joined)
        ct_vips_set_int(image, "orientation", Int32(orientation))
        ct_vips_set_string(image, "exif-ifd0-Make", make)
        Array(xmp.utf8).withUnsafeBytes { ct_vips_set_blob(image, "xmp-data", $0.baseAddress, $0.count) }
        return try encode(image, format: format)
    }

    /// A `width` x `height` image of `bands` bands (2 and 4 carry a fully transparent alpha band; 1 and 2 are grey), all samples `value`.
    static func flat(width: Int, height: Int, bands: Int, value: Double, format: String) throws -> [UInt8] {
        try #require(started)
        var black: OpaquePointer?, solid: OpaquePointer?
        #expect(ct_vips_solid(&black, Int32(width), Int32(height), value, value, value) == 0)
        defer { ct_vips_release(black); ct_vips_release(solid) }
        var image = try #require(black)
        if bands != 3 {
            var bandsOut: OpaquePointer?
            #expect(ct_vips_test_bands(image, &bandsOut, Int32(bands)) == 0)
            solid = bandsOut
            image = try #require(bandsOut)
        }
        return try encode(image, format: format)
    }

    private static func encode(_ image: OpaquePointer, format: String) throws -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch format {
        case "jpeg": ct_vips_jpeg_keep(image, &buffer, &length, 90)
        case "png": ct_vips_png(image, &buffer, &length)
        case "heic": ct_vips_heic(image, &buffer, &length, 50)
        default: ct_vips_webp(image, &buffer, &length, 80)
        }
        #expect(status == 0, "\(format): \(VipsLibrary.takeError())")
        let bytes = try #require(buffer)
        defer { ct_vips_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// What a decoder reads from an encoded image.
    struct Decoded {
        let width: Int
        let height: Int
        let bands: Int
        let isSRGB8: Bool
        /// The metadata items it carries (EXIF, XMP, ICC, IPTC, orientation).
        let metadata: [String]
        /// The band values at a few points, by name.
        let pixels: [String: [Double]]
    }

    /// Decodes `bytes`, reading the pixels at the centre of the top and bottom quarters.
    static func decode(_ bytes: [UInt8]) throws -> Decoded {
        try #require(started)
        return try bytes.withUnsafeBytes { buffer in
            let header = try #require(ct_vips_open_buffer(buffer.baseAddress, buffer.count))
            defer { ct_vips_release(header) }
            let memory = try #require(ct_vips_copy_memory(header))
            defer { ct_vips_release(memory) }
            let width = Int(ct_vips_width(memory)), height = Int(ct_vips_height(memory))
            let names: [String] = ["exif-data", "xmp-data", "icc-profile-data", "iptc-data", "orientation"]
            let metadata = names.filter { name in ct_vips_has_field(memory, name) != 0 }
            var pixels: [String: [Double]] = [:]
            for (name, y) in [("top", height / 4), ("bottom", height * 3 / 4)] {
                var values = [Double](repeating: 0, count: 4)
                let count = ct_vips_pixel(memory, Int32(width / 2), Int32(y), &values, 4)
                pixels[name] = Array(values.prefix(Int(max(0, count))))
            }
            return Decoded(
                width: width, height: height, bands: Int(ct_vips_bands(memory)),
                isSRGB8: ct_vips_interpretation(memory) == Int32(CT_VIPS_INTERPRETATION_SRGB) && ct_vips_format(memory) == Int32(CT_VIPS_FORMAT_UCHAR),
                metadata: metadata, pixels: pixels)
        }
    }
}
