/// Removes location metadata from uploaded PNG images before they are stored, as ``JPEGLocationScrubber`` does for
/// JPEG photos.
///
/// What is removed:
/// - From the `eXIf` chunk (EXIF as a TIFF structure, as phones and editors write it), the GPS directory, exactly as
///   from a JPEG's EXIF segment: every other tag (Orientation, Make...) stays byte-identical, and the chunk keeps its
///   length with a new CRC. An `eXIf` chunk whose GPS data cannot be located safely is dropped whole.
/// - Text chunks (`tEXt`, `zTXt`, `iTXt`) holding a metadata packet that can carry a location: XMP
///   (`XML:com.adobe.xmp`) and the raw EXIF, XMP and IPTC profiles that ImageMagick writes (`Raw profile type ...`).
/// - Anything after `IEND`.
///
/// Every other chunk, the pixel data included, is copied byte for byte. When the chunk structure breaks (a truncated
/// chunk), the output stops at the last intact chunk, so no unexamined bytes pass through. Input that does not start
/// with the PNG signature is returned unchanged.
public enum PNGLocationScrubber {
    /// The chunk type `eXIf`.
    static let exif = Array("eXIf".utf8)
    /// The chunk type `IEND`.
    static let end = Array("IEND".utf8)
    /// The text chunk types, whose data starts with a NUL-terminated keyword.
    static let textChunks: Set<[UInt8]> = [Array("tEXt".utf8), Array("zTXt".utf8), Array("iTXt".utf8)]
    /// Keywords of text chunks that hold a metadata packet.
    static let metadataKeywords: Set<String> = [
        "XML:com.adobe.xmp", "Raw profile type exif", "Raw profile type APP1", "Raw profile type xmp", "Raw profile type iptc",
    ]

    /// `png` with its location metadata removed as described on ``PNGLocationScrubber``. Idempotent.
    public static func removingLocation(from png: [UInt8]) -> [UInt8] {
        let signature = ImageInspector.PNG.signature
        guard png.starts(with: signature) else { return png }
        var output = signature
        output.reserveCapacity(png.count)
        var offset = signature.count
        let reader = ImageInspector.ByteReader(png)
        while let length = reader.u32be(at: offset).flatMap({ Int(exactly: $0) }), length <= 0x7FFF_FFFF,
              reader.contains(offset, length: 12 + length) {
            let type = Array(png[(offset + 4)..<(offset + 8)])
            let data = png[(offset + 8)..<(offset + 8 + length)]
            switch edit(type: type, data: data) {
            case .keep:
                output += png[offset..<(offset + 12 + length)]
            case .drop:
                break
            case .replace(let newData):
                let body = type + newData
                output += png[offset..<(offset + 4)] + body + bigEndian(ImageInspector.PNG.crc32(body))
            }
            offset += 12 + length
            if type == end { break }
        }
        return output
    }

    /// What becomes of the chunk of `type` with `data`.
    static func edit(type: [UInt8], data: ArraySlice<UInt8>) -> MetadataEdit {
        if type == exif { return JPEGLocationScrubber.locationEdit(ofEXIF: data) }
        guard textChunks.contains(type) else { return .keep }
        let keyword = data.prefix { $0 != 0 }
        return metadataKeywords.contains(String(decoding: keyword, as: UTF8.self)) ? .drop : .keep
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
