/// Removes the metadata chunks (`EXIF`, `XMP `, `ICCP`) from a WebP file and clears their flags in its `VP8X` header,
/// keeping the picture's chunks byte for byte.
///
/// libvips 8.14 (Debian 12) writes an EXIF chunk into every extended WebP even when asked to strip metadata; the
/// variants pass through this so that they carry none.
public enum WebPMetadataStripper {
    /// `file` without its metadata chunks; any input that is not a well-formed RIFF WebP is returned unchanged.
    public static func removingMetadata(from file: [UInt8]) -> [UInt8] {
        let allFlags = WebPChunks.metadataFlags.values.reduce(0, |)
        guard let edited = WebPChunks.editing(file, clearing: allFlags, { fourCC, _ in WebPChunks.metadataFlags[fourCC] == nil ? .keep : .drop }),
              edited.intact
        else { return file }
        return edited.file
    }
}
