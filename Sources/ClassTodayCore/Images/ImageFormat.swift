/// An image file format accepted for class photos.
///
/// The format of an upload is always decided from its bytes by ``ImageInspector``,
/// never from the file name or the declared `Content-Type`.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    /// JPEG / JFIF / EXIF (`FF D8` followed by marker segments).
    case jpeg
    /// Portable Network Graphics.
    case png
    /// WebP in a RIFF container (lossy `VP8 `, lossless `VP8L` or extended `VP8X`).
    case webp
    /// HEIF container whose brand says the image is HEVC coded (`heic`, `heix`, `hevc`, ...).
    case heic
    /// HEIF container with a generic brand (`mif1`, `msf1`) and no HEVC brand.
    case heif

    /// The MIME type to serve this format with, e.g. `image/jpeg`.
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        }
    }

    /// The conventional file extension for this format, without the dot (e.g. `jpg`).
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heic: "heic"
        case .heif: "heif"
        }
    }
}

/// What ``ImageInspector`` learnt from an image's headers.
///
/// `width` and `height` are the stored (coded) pixel dimensions, both at least 1.
/// Display transformations are not applied: a JPEG with EXIF orientation 6 or a
/// HEIC with an `irot` property reports its sensor-order size, not the rotated one.
public struct ImageInfo: Sendable, Hashable, Codable {
    /// The detected format.
    public let format: ImageFormat
    /// Stored width in pixels (>= 1).
    public let width: Int
    /// Stored height in pixels (>= 1).
    public let height: Int

    /// Creates an image description.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}
