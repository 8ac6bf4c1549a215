/// Identifies uploaded images from their bytes and reads their dimensions.
///
/// Only headers are read; pixel data is never decoded. All parsing is total:
/// any input, however hostile or truncated, yields either a result or `nil`,
/// never a crash.
public enum ImageInspector {
    /// Detects the format of `bytes` and reads the image's width and height.
    ///
    /// - Returns: `nil` when the bytes are not a JPEG, PNG, WebP, HEIC or HEIF
    ///   image, or when its header is truncated, inconsistent, or declares a
    ///   zero dimension.
    public static func inspect(_ bytes: some Collection<UInt8>) -> ImageInfo? {
        let reader = ByteReader(Array(bytes))
        if reader.matches(PNG.signature, at: 0) {
            return PNG.inspect(reader)
        }
        if reader.u8(at: 0) == 0xFF, reader.u8(at: 1) == 0xD8 {
            return JPEG.inspect(reader)
        }
        if reader.matches(WebP.riff, at: 0), reader.matches(WebP.webp, at: 8) {
            return WebP.inspect(reader)
        }
        if reader.u32be(at: 4) == HEIF.BoxType.ftyp {
            return HEIF.inspect(reader)
        }
        return nil
    }
}

extension ImageInspector {
    /// Bounds-checked reads over a byte array: every accessor returns `nil`
    /// instead of trapping when the requested bytes are not all present.
    struct ByteReader {
        /// The bytes being read.
        let bytes: [UInt8]

        /// Wraps `bytes`.
        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Number of bytes available.
        var count: Int { bytes.count }

        /// Whether `length` bytes starting at `offset` are all present (overflow-safe).
        func contains(_ offset: Int, length: Int) -> Bool {
            offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
        }

        /// The byte at `offset`.
        func u8(at offset: Int) -> UInt8? {
            contains(offset, length: 1) ? bytes[offset] : nil
        }

        /// A big-endian 16-bit value at `offset`.
        func u16be(at offset: Int) -> UInt16? {
            guard contains(offset, length: 2) else { return nil }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        /// A little-endian 16-bit value at `offset`.
        func u16le(at offset: Int) -> UInt16? {
            guard contains(offset, length: 2) else { return nil }
            return UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset])
        }

        /// A little-endian 24-bit value at `offset`.
        func u24le(at offset: Int) -> UInt32? {
            guard contains(offset, length: 3) else { return nil }
            return UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
        }

        /// A big-endian 24-bit value at `offset`.
        func u24be(at offset: Int) -> UInt32? {
            guard contains(offset, length: 3) else { return nil }
            return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
        }

        /// A big-endian 32-bit value at `offset`.
        func u32be(at offset: Int) -> UInt32? {
            guard contains(offset, length: 4) else { return nil }
            var value: UInt32 = 0
            for index in offset..<(offset + 4) {
                value = value << 8 | UInt32(bytes[index])
            }
            return value
        }

        /// A little-endian 32-bit value at `offset`.
        func u32le(at offset: Int) -> UInt32? {
            guard contains(offset, length: 4) else { return nil }
            var value: UInt32 = 0
            for index in (offset..<(offset + 4)).reversed() {
                value = value << 8 | UInt32(bytes[index])
            }
            return value
        }

        /// A big-endian 64-bit value at `offset`.
        func u64be(at offset: Int) -> UInt64? {
            guard contains(offset, length: 8) else { return nil }
            var value: UInt64 = 0
            for index in offset..<(offset + 8) {
                value = value << 8 | UInt64(bytes[index])
            }
            return value
        }

        /// Whether `expected` occurs exactly at `offset`.
        func matches(_ expected: [UInt8], at offset: Int) -> Bool {
            guard contains(offset, length: expected.count) else { return false }
            return bytes[offset..<(offset + expected.count)].elementsEqual(expected)
        }
    }
}
