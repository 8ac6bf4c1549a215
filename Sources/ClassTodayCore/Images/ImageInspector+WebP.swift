extension ImageInspector {
    /// WebP header parsing: `RIFF` size `WEBP` followed by a `VP8 `, `VP8L` or `VP8X` chunk.
    enum WebP {
        /// The RIFF container tag.
        static let riff: [UInt8] = Array("RIFF".utf8)
        /// The WebP form type at offset 8.
        static let webp: [UInt8] = Array("WEBP".utf8)
        /// Lossy bitstream chunk.
        static let vp8: [UInt8] = Array("VP8 ".utf8)
        /// Lossless bitstream chunk.
        static let vp8l: [UInt8] = Array("VP8L".utf8)
        /// Extended-format header chunk.
        static let vp8x: [UInt8] = Array("VP8X".utf8)

        /// Offset of the first chunk's payload (12-byte RIFF header + 8-byte chunk header).
        private static let payload = 20

        /// Reads the canvas size from the first chunk.
        static func inspect(_ reader: ByteReader) -> ImageInfo? {
            guard reader.matches(riff, at: 0), reader.matches(webp, at: 8),
                  let riffSize = reader.u32le(at: 4), riffSize >= 12,
                  let chunkSize = reader.u32le(at: 16), riffSize - 12 >= chunkSize // as libwebp: the chunk must fit in the RIFF
            else { return nil }
            let size: (width: UInt32, height: UInt32)?
            if reader.matches(vp8, at: 12), chunkSize >= 10 {
                size = lossySize(reader)
            } else if reader.matches(vp8l, at: 12), chunkSize >= 5 {
                size = losslessSize(reader)
            } else if reader.matches(vp8x, at: 12), chunkSize >= 10 {
                size = extendedSize(reader)
            } else {
                size = nil
            }
            guard let size, size.width > 0, size.height > 0,
                  let width = Int(exactly: size.width), let height = Int(exactly: size.height)
            else { return nil }
            return ImageInfo(format: .webp, width: width, height: height)
        }

        /// VP8 key-frame header: 3-byte frame tag, start code `9D 01 2A`, then
        /// 14-bit width and height (the top two bits are a scaling hint).
        private static func lossySize(_ reader: ByteReader) -> (width: UInt32, height: UInt32)? {
            guard let tag = reader.u24le(at: payload),
                  tag & 1 == 0, // key frame
                  (tag >> 1) & 7 <= 3, // version
                  reader.matches([0x9D, 0x01, 0x2A], at: payload + 3),
                  let width = reader.u16le(at: payload + 6),
                  let height = reader.u16le(at: payload + 8)
            else { return nil }
            return (UInt32(width & 0x3FFF), UInt32(height & 0x3FFF))
        }

        /// VP8L header: signature `0x2F`, then 14 bits width-1, 14 bits height-1,
        /// 1 alpha bit and a 3-bit version that must be 0.
        private static func losslessSize(_ reader: ByteReader) -> (width: UInt32, height: UInt32)? {
            guard reader.u8(at: payload) == 0x2F,
                  let bits = reader.u32le(at: payload + 1),
                  bits >> 29 == 0
            else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }

        /// VP8X header: flags and 3 reserved bytes, then 24-bit canvas width-1
        /// and height-1.
        private static func extendedSize(_ reader: ByteReader) -> (width: UInt32, height: UInt32)? {
            guard let width = reader.u24le(at: payload + 4),
                  let height = reader.u24le(at: payload + 7)
            else { return nil }
            return (width + 1, height + 1)
        }
    }
}
