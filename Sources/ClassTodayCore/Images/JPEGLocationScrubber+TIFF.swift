extension JPEGLocationScrubber {
    /// A TIFF structure (the body of an EXIF APP1 segment after `Exif\0\0`),
    /// with byte-order-aware, bounds-checked access to its image file directories.
    /// Offsets are relative to the start of the TIFF header, as in the file.
    struct TIFF {
        /// Well-known tags.
        enum Tag {
            /// Pointer to the GPS IFD.
            static let gpsInfo: UInt16 = 0x8825
            /// Pointer to the EXIF sub-IFD.
            static let exifIFD: UInt16 = 0x8769
            /// Pointer to the interoperability IFD (inside the EXIF IFD).
            static let interoperabilityIFD: UInt16 = 0xA005
            /// Offset of the JPEG thumbnail (IFD1).
            static let thumbnailOffset: UInt16 = 0x0201
            /// Length of the JPEG thumbnail (IFD1).
            static let thumbnailLength: UInt16 = 0x0202
            /// Image orientation (1–8).
            static let orientation: UInt16 = 0x0112
            /// Camera maker (ASCII).
            static let make: UInt16 = 0x010F
        }

        /// One 12-byte IFD entry.
        struct Entry {
            /// The tag number.
            let tag: UInt16
            /// The field type (1 BYTE ... 13 IFD).
            let type: UInt16
            /// The number of values.
            let count: UInt32
            /// Offset of the entry itself; its value/offset field is at `offset + 8`.
            let offset: Int
        }

        /// An image file directory: entry count, entries, next-IFD offset.
        struct IFD {
            /// Offset of the entry count.
            let offset: Int
            /// The entries in file order.
            let entries: [Entry]
            /// The bytes of the directory table, next-IFD offset included.
            var tableRange: Range<Int> { offset..<(offset + 2 + 12 * entries.count + 4) }
            /// Offset of the next-IFD field.
            var nextOffsetField: Int { offset + 2 + 12 * entries.count }
        }

        /// Where an entry's value lives.
        enum ValueLocation: Equatable {
            /// In the entry's own 4-byte value field (or of unknown type).
            case inline
            /// Elsewhere in the TIFF, at these bytes.
            case external(Range<Int>)
            /// The value field points outside the TIFF.
            case outOfBounds
        }

        /// The TIFF bytes.
        private(set) var bytes: [UInt8]
        /// `true` for `MM` (Motorola) byte order, `false` for `II` (Intel).
        let bigEndian: Bool
        /// Offset of IFD0 (the primary image's directory).
        let firstIFDOffset: Int

        /// Parses the 8-byte TIFF header; `nil` unless it is `II*\0` or `MM\0*`.
        init?(_ bytes: [UInt8]) {
            self.bytes = bytes
            let reader = ImageInspector.ByteReader(bytes)
            if reader.matches([0x49, 0x49, 0x2A, 0x00], at: 0) {
                bigEndian = false
            } else if reader.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) {
                bigEndian = true
            } else {
                return nil
            }
            guard let offset = (bigEndian ? reader.u32be(at: 4) : reader.u32le(at: 4)).flatMap({ Int(exactly: $0) })
            else { return nil }
            firstIFDOffset = offset
        }

        /// A 16-bit value at `offset` in the file's byte order.
        func u16(at offset: Int) -> UInt16? {
            let reader = ImageInspector.ByteReader(bytes)
            return bigEndian ? reader.u16be(at: offset) : reader.u16le(at: offset)
        }

        /// A 32-bit value at `offset` in the file's byte order.
        func u32(at offset: Int) -> UInt32? {
            let reader = ImageInspector.ByteReader(bytes)
            return bigEndian ? reader.u32be(at: offset) : reader.u32le(at: offset)
        }

        /// The directory at `offset`, or `nil` unless its whole table (count,
        /// entries and next-IFD offset) lies after the header and inside the TIFF.
        func ifd(at offset: Int) -> IFD? {
            guard offset >= 8, let count = u16(at: offset) else { return nil }
            let tableLength = 2 + 12 * Int(count) + 4
            guard ImageInspector.ByteReader(bytes).contains(offset, length: tableLength) else { return nil }
            var entries: [Entry] = []
            entries.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                let entryOffset = offset + 2 + 12 * index
                guard let tag = u16(at: entryOffset), let type = u16(at: entryOffset + 2),
                      let valueCount = u32(at: entryOffset + 4)
                else { return nil }
                entries.append(Entry(tag: tag, type: type, count: valueCount, offset: entryOffset))
            }
            return IFD(offset: offset, entries: entries)
        }

        /// The sub-directory an entry points to (e.g. EXIF, GPS), if valid.
        func ifd(pointedToBy entry: Entry) -> IFD? {
            guard entry.count == 1, entry.type == 4 || entry.type == 13,
                  let target = u32(at: entry.offset + 8).flatMap({ Int(exactly: $0) })
            else { return nil }
            return ifd(at: target)
        }

        /// Size in bytes of one value of `type`, or `nil` for unknown types.
        static func valueSize(of type: UInt16) -> Int? {
            switch type {
            case 1, 2, 6, 7: 1 // BYTE, ASCII, SBYTE, UNDEFINED
            case 3, 8: 2 // SHORT, SSHORT
            case 4, 9, 11, 13: 4 // LONG, SLONG, FLOAT, IFD
            case 5, 10, 12: 8 // RATIONAL, SRATIONAL, DOUBLE
            default: nil
            }
        }

        /// Where `entry`'s value is stored. Values of at most four bytes (and
        /// values of unknown type) live in the entry's value field.
        func valueLocation(of entry: Entry) -> ValueLocation {
            guard let size = Self.valueSize(of: entry.type) else { return .inline }
            guard let count = Int(exactly: entry.count) else { return .outOfBounds }
            let (length, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow else { return .outOfBounds }
            guard length > 4 else { return .inline }
            guard let target = u32(at: entry.offset + 8).flatMap({ Int(exactly: $0) }),
                  ImageInspector.ByteReader(bytes).contains(target, length: length)
            else { return .outOfBounds }
            return .external(target..<(target + length))
        }

        /// Removes every entry of `ifd` whose tag is `tag`: later entries move up,
        /// the count is decremented, the next-IFD offset moves right after the last
        /// entry (its value unchanged, as nothing else moves) and the freed tail of
        /// the table is zeroed. Nothing outside the table changes.
        mutating func removeEntries(tagged tag: UInt16, from ifd: IFD) {
            let original = bytes
            let kept = ifd.entries.filter { $0.tag != tag }
            var cursor = ifd.offset
            write16(UInt16(kept.count), at: cursor)
            cursor += 2
            for entry in kept {
                bytes.replaceSubrange(cursor..<(cursor + 12), with: original[entry.offset..<(entry.offset + 12)])
                cursor += 12
            }
            let next = ifd.nextOffsetField
            bytes.replaceSubrange(cursor..<(cursor + 4), with: original[next..<(next + 4)])
            cursor += 4
            zero(cursor..<ifd.tableRange.upperBound)
        }

        /// Overwrites `range` with zeros (clamped to the TIFF).
        mutating func zero(_ range: Range<Int>) {
            let clamped = range.clamped(to: 0..<bytes.count)
            for index in clamped {
                bytes[index] = 0
            }
        }

        /// Writes a 16-bit value in the file's byte order (ignored when out of bounds).
        private mutating func write16(_ value: UInt16, at offset: Int) {
            guard ImageInspector.ByteReader(bytes).contains(offset, length: 2) else { return }
            let high = UInt8(value >> 8), low = UInt8(value & 0xFF)
            bytes[offset] = bigEndian ? high : low
            bytes[offset + 1] = bigEndian ? low : high
        }
    }
}
