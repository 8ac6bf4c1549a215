/// Removes location metadata from uploaded WebP images before they are stored, as ``JPEGLocationScrubber`` does for
/// JPEG photos.
///
/// What is removed:
/// - From the `EXIF` chunk (a TIFF structure, with or without an `Exif\0\0` header), the GPS directory, exactly as
///   from a JPEG's EXIF segment: every other tag (Orientation, Make...) stays byte-identical. An `EXIF` chunk whose
///   GPS data cannot be located safely is dropped whole, and so is its flag in the `VP8X` header.
/// - The `XMP ` chunk, which can carry a location too (and its `VP8X` flag).
///
/// Every other chunk (the picture, alpha, animation frames, the ICC profile) is copied byte for byte. When the chunk
/// structure breaks, the output stops at the last intact chunk, so no unexamined bytes pass through; anything after
/// the chunks goes too. Input that is not a RIFF WebP is returned unchanged.
public enum WebPLocationScrubber {
    /// `webp` with its location metadata removed as described on ``WebPLocationScrubber``. Idempotent.
    public static func removingLocation(from webp: [UInt8]) -> [UInt8] {
        WebPChunks.editing(webp, edit)?.file ?? webp
    }

    /// What becomes of the chunk `fourCC` with `payload`.
    static func edit(fourCC: [UInt8], payload: ArraySlice<UInt8>) -> MetadataEdit {
        switch String(decoding: fourCC, as: UTF8.self) {
        case "EXIF": JPEGLocationScrubber.locationEdit(ofEXIF: payload)
        case "XMP ": .drop
        default: .keep
        }
    }
}
