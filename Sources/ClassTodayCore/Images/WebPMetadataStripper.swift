/// Removes the metadata chunks (`EXIF`, `XMP `, `ICCP`) from a WebP file and clears their flags in its `VP8X` header,
/// keeping the picture's chunks byte for byte.
///
/// libvips 8.14 (Debian 12) writes an EXIF chunk into every extended WebP even when asked to strip metadata; the
/// variants pass through this so that they carry none.
public enum WebPMetadataStripper {
    /// The chunks that hold metadata rather than pixels.
    static let metadataChunks: Set<[UInt8]> = [Array("EXIF".utf8), Array("XMP ".utf8), Array("ICCP".utf8)]
    /// The `VP8X` flag bits of those chunks: ICC profile, EXIF, XMP.
    static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    /// `file` without its metadata chunks; any input that is not a well-formed RIFF WebP is returned unchanged.
    public static func removingMetadata(from file: [UInt8]) -> [UInt8] {
        guard file.count >= 12, file[0..<4].elementsEqual("RIFF".utf8), file[8..<12].elementsEqual("WEBP".utf8) else { return file }
        var output = Array(file[0..<12])
        var offset = 12
        while offset < file.count {
            guard offset + 8 <= file.count else { return file }
            let fourCC = Array(file[offset..<offset + 4])
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            guard end <= file.count || (offset + 8 + size == file.count) else { return file }
            let chunkEnd = min(end, file.count)
            if !metadataChunks.contains(fourCC) {
                let start = output.count
                output += file[offset..<chunkEnd]
                if fourCC.elementsEqual("VP8X".utf8), size >= 1 { output[start + 8] &= ~metadataFlags }
            }
            offset = chunkEnd
        }
        let riffSize = UInt32(output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(index))) }
        return output
    }
}
