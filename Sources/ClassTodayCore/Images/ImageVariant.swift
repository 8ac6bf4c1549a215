/// A resized copy of an uploaded image that every client can decode, made on first request and stored beside the
/// original under the original's content hash (identical uploads share their variants).
///
/// Each variant fits its box, keeping the aspect ratio; none is ever larger than the original. The EXIF
/// orientation is applied, every metadata item is removed and the colours are sRGB.
public enum ImageVariant: String, Sendable, CaseIterable, Codable {
    /// Fits 320 x 320: lists and chat previews.
    case thumb
    /// Fits 800 x 800: a class card or a profile page.
    case card
    /// Fits 2048 x 2048: full-screen viewing.
    case full

    /// The side of the square box the variant fits, in pixels.
    public var boxSide: Int {
        switch self {
        case .thumb: 320
        case .card: 800
        case .full: 2048
        }
    }
}

/// The encodings variants are served in: WebP to clients that accept it, JPEG to every other.
public enum VariantEncoding: String, Sendable, CaseIterable, Codable {
    /// Baseline JPEG, which every client decodes.
    case jpeg
    /// Lossy WebP, smaller at the same quality.
    case webp

    /// The MIME type it is served with.
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        }
    }

    /// The encoding to answer an `Accept` header with: WebP when the header names `image/webp` with a non-zero
    /// quality, JPEG otherwise (including without the header, or for `*/*` and `image/*` alone, which many clients
    /// send without being able to decode WebP).
    public static func negotiated(accept: String?) -> VariantEncoding {
        guard let accept else { return .jpeg }
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { String($0).trimmingWhitespace().lowercased() }
            guard parts.first == "image/webp" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0 ? .webp : .jpeg
        }
        return .jpeg
    }
}

/// The images that clients may not decode and that others are therefore served as a variant: HEIC and HEIF.
extension ImageFormat {
    /// Whether every client can show this format (JPEG, PNG, WebP); HEIC/HEIF originals go only to their uploader.
    public var isWidelyDecodable: Bool {
        switch self {
        case .jpeg, .png, .webp: true
        case .heic, .heif: false
        }
    }
}
