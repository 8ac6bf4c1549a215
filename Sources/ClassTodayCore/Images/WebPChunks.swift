/// Rewrites a RIFF WebP file chunk by chunk, for the metadata scrubbers: each chunk is kept, dropped or given a new
/// payload of the same length; the `VP8X` header's flags of dropped metadata chunks are cleared and the RIFF size is
/// written anew.
enum WebPChunks {
    /// The `VP8X` flag bit of each metadata chunk: ICC profile, EXIF, XMP.
    static let metadataFlags: [[UInt8]: UInt8] = [Array("ICCP".utf8): 0x20, Array("EXIF".utf8): 0x08, Array("XMP ".utf8): 0x04]

    /// The rewritten file, and whether its whole chunk structure was intact. A file whose structure breaks is
    /// rewritten up to its last intact chunk. `clearing` names `VP8X` flags to clear even without their chunk. Nil
    /// when `file` is not a RIFF WebP at all.
    static func editing(
        _ file: [UInt8], clearing: UInt8 = 0, _ edit: (_ fourCC: [UInt8], _ payload: ArraySlice<UInt8>) -> MetadataEdit
    ) -> (file: [UInt8], intact: Bool)? {
        guard file.count >= 12, file[0..<4].elementsEqual("RIFF".utf8), file[8..<12].elementsEqual("WEBP".utf8) else { return nil }
        var output = Array(file[0..<12])
        var headerFlagsIndex: Int?
        var droppedFlags = clearing
        var offset = 12
        var intact = true
        while offset < file.count {
            guard offset + 8 <= file.count else { intact = false; break }
            let fourCC = Array(file[offset..<offset + 4])
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            // The last chunk may lack its padding byte.
            guard end <= file.count || offset + 8 + size == file.count else { intact = false; break }
            let chunkEnd = min(end, file.count)
            switch edit(fourCC, file[(offset + 8)..<(offset + 8 + size)]) {
            case .keep:
                if fourCC.elementsEqual("VP8X".utf8), size >= 1 { headerFlagsIndex = output.count + 8 }
                output += file[offset..<chunkEnd]
            case .drop:
                droppedFlags |= metadataFlags[fourCC] ?? 0
            case .replace(let payload):
                output += file[offset..<(offset + 8)] + payload + file[(offset + 8 + size)..<chunkEnd]
            }
            offset = chunkEnd
        }
        if let headerFlagsIndex { output[headerFlagsIndex] &= ~droppedFlags }
        let riffSize = UInt32(output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(index))) }
        return (output, intact)
    }
}
