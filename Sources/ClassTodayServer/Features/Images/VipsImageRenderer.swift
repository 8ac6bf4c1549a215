import CVips
import ClassTodayCore
import Foundation

/// Makes image variants with libvips: shrink on load where the format allows it (JPEG decodes at 1/2, 1/4 or 1/8
/// scale, WebP and HEIC at the size needed), apply the EXIF orientation, convert to 8-bit sRGB, flatten alpha onto
/// white for JPEG, and encode without any metadata. A truncated or damaged file is a failure, never a render padded
/// with grey.
///
/// Images with more than ``maxPixels`` pixels are refused from their header, before any pixel is decoded, so that a
/// small file declaring a huge image (a decompression bomb) costs nothing. The methods block the calling thread for
/// the whole decode and encode: run them on ``WorkerPool/images``, never on an event loop. Make one only once
/// ``VipsLibrary/load(path:logger:)`` has found libvips.
public struct VipsImageRenderer: Sendable {
    /// The largest width x height accepted.
    public let maxPixels: Int

    /// JPEG quality of variants (libvips' `Q`, 1-100).
    static let jpegQuality: Int32 = 82
    /// WebP quality of variants (libvips' `Q`, 1-100).
    static let webpQuality: Int32 = 80

    /// Creates a renderer refusing images of more than `maxPixels` pixels.
    public init(maxPixels: Int) {
        self.maxPixels = maxPixels
    }

    /// Why an image could not be rendered.
    public enum Failure: Error, Equatable {
        /// The image has more pixels than allowed.
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// libvips could not read or encode the image (damaged, truncated, not an image); the reason is for logs,
        /// not for clients.
        case undecodable(String)
    }

    /// The encoded bytes of `variant` of the image file at `path`.
    public func render(file path: String, variant: ImageVariant, encoding: VariantEncoding) throws(Failure) -> Data {
        guard ct_vips_is_started() != 0 else { throw .undecodable("libvips is not loaded") }
        guard let header = ct_vips_open_header(path) else { throw Self.libraryFailure() }
        let hasProfile = ct_vips_has_profile(header)
        try checkPixels(header)
        var thumbnail: OpaquePointer?
        guard ct_vips_thumbnail(path, &thumbnail, Int32(variant.boxSide), Int32(variant.boxSide), hasProfile) == 0, let thumbnail else {
            throw Self.libraryFailure()
        }
        return try Self.encode(thumbnail, as: encoding)
    }

    /// Throws ``Failure/tooManyPixels(width:height:limit:)`` when the opened `header` declares too many pixels;
    /// releases it either way.
    private func checkPixels(_ header: OpaquePointer) throws(Failure) {
        let width = Int(ct_vips_width(header)), height = Int(ct_vips_height(header))
        ct_vips_release(header)
        guard width * height <= maxPixels else { throw .tooManyPixels(width: width, height: height, limit: maxPixels) }
    }

    /// Converts `image` to what every client shows (8-bit sRGB; no alpha in JPEG) and encodes it without metadata;
    /// releases `image` and everything made from it.
    private static func encode(_ image: OpaquePointer, as encoding: VariantEncoding) throws(Failure) -> Data {
        var current = image
        defer { ct_vips_release(current) }
        func step(_ operation: (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws(Failure) {
            var next: OpaquePointer?
            guard operation(current, &next) == 0, let next else { throw libraryFailure() }
            ct_vips_release(current)
            current = next
        }
        if ct_vips_interpretation(current) != Int32(CT_VIPS_INTERPRETATION_SRGB) {
            try step { ct_vips_srgb($0, $1) }
        }
        if ct_vips_format(current) != Int32(CT_VIPS_FORMAT_UCHAR) {
            try step { ct_vips_uchar($0, $1) }
        }
        if encoding == .jpeg, ct_vips_has_alpha(current) != 0 {
            try step { ct_vips_flatten_white($0, $1) }
        }
        try step { ct_vips_strip($0, $1) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = switch encoding {
        case .jpeg: ct_vips_jpeg(current, &buffer, &length, jpegQuality)
        case .webp: ct_vips_webp(current, &buffer, &length, webpQuality)
        }
        guard status == 0, let buffer else { throw libraryFailure() }
        defer { ct_vips_free(buffer) }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
        return encoding == .webp ? Data(WebPMetadataStripper.removingMetadata(from: Array(bytes))) : Data(bytes)
    }

    /// The failure libvips reported last, clearing its error buffer.
    static func libraryFailure() -> Failure {
        .undecodable(VipsLibrary.takeError())
    }
}
