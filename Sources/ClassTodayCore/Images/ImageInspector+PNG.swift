extension ImageInspector {
    /// PNG header parsing: signature followed by a CRC-checked IHDR chunk.
    public enum PNG {
        /// The eight-byte PNG file signature.
        public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        /// The chunk type `IHDR`.
        static let ihdr: [UInt8] = Array("IHDR".utf8)

        /// Reads width and height from IHDR, which must be the first chunk,
        /// be 13 bytes long, carry valid field values and a matching CRC.
        static func inspect(_ reader: ByteReader) -> ImageInfo? {
            guard reader.matches(signature, at: 0),
                  reader.u32be(at: 8) == 13,
                  reader.matches(ihdr, at: 12),
                  let width = reader.u32be(at: 16),
                  let height = reader.u32be(at: 20),
                  let bitDepth = reader.u8(at: 24),
                  let colorType = reader.u8(at: 25),
                  let compression = reader.u8(at: 26),
                  let filter = reader.u8(at: 27),
                  let interlace = reader.u8(at: 28),
                  let storedCRC = reader.u32be(at: 29)
            else { return nil }
            // Dimensions are 1...2^31-1 per the specification.
            guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height),
                  [1, 2, 4, 8, 16].contains(bitDepth),
                  [0, 2, 3, 4, 6].contains(colorType),
                  compression == 0, filter == 0, interlace <= 1,
                  crc32(reader.bytes[12..<29]) == storedCRC,
                  let w = Int(exactly: width), let h = Int(exactly: height)
            else { return nil }
            return ImageInfo(format: .png, width: w, height: h)
        }

        /// The CRC-32 (ISO 3309, polynomial `0xEDB88320`) used by PNG chunks,
        /// computed over the chunk type and data.
        public static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
            return crc ^ 0xFFFF_FFFF
        }

        /// Lookup table for ``crc32(_:)``.
        private static let crcTable: [UInt32] = (0..<256).map { index in
            var value = UInt32(index)
            for _ in 0..<8 {
                value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
            }
            return value
        }
    }
}
