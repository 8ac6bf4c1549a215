import Foundation

/// Removes location metadata from an uploaded image of any accepted format before it is stored: JPEG
/// (``JPEGLocationScrubber``), PNG (``PNGLocationScrubber``) and WebP (``WebPLocationScrubber``). HEIC and HEIF
/// originals are kept as they came: they go only to their uploader, and everyone else gets their variants, which
/// carry no metadata at all.
public enum ImageLocationScrubber {
    /// `bytes`, an image in `format`, without its location metadata.
    public static func removingLocation(from bytes: Data, format: ImageFormat) -> Data {
        switch format {
        case .jpeg: JPEGLocationScrubber.removingLocation(from: bytes)
        case .png: Data(PNGLocationScrubber.removingLocation(from: [UInt8](bytes)))
        case .webp: Data(WebPLocationScrubber.removingLocation(from: [UInt8](bytes)))
        case .heic, .heif: bytes
        }
    }
}
