extension ImageInspector {
    /// HEIF/HEIC parsing over ISO base media file format (ISO-BMFF) boxes.
    ///
    /// The format comes from the `ftyp` brands; the size from the `ispe`
    /// (image spatial extents) property in `meta` > `iprp` > `ipco` that the
    /// `ipma` box associates with the primary item (`pitm`), falling back to the
    /// largest `ispe` when that association cannot be resolved.
    enum HEIF {
        /// Four-character box types as big-endian integers.
        enum BoxType {
            /// File type box.
            static let ftyp = fourCC("ftyp")
            /// Metadata box (a full box).
            static let meta = fourCC("meta")
            /// Primary item reference.
            static let pitm = fourCC("pitm")
            /// Item properties box.
            static let iprp = fourCC("iprp")
            /// Item property container.
            static let ipco = fourCC("ipco")
            /// Item property association.
            static let ipma = fourCC("ipma")
            /// Image spatial extents property.
            static let ispe = fourCC("ispe")
        }

        /// Major brands meaning HEVC-coded images or sequences.
        static let heicBrands: Set<UInt32> = Set(["heic", "heix", "hevc", "hevx", "heim", "heis"].map(fourCC))
        /// Generic HEIF structural brands.
        static let heifBrands: Set<UInt32> = Set(["mif1", "msf1"].map(fourCC))

        /// Packs a four-character ASCII code into a big-endian integer.
        static func fourCC(_ code: String) -> UInt32 {
            code.utf8.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// A box located in the file.
        struct Box {
            /// The box type.
            let type: UInt32
            /// Offset of the box header.
            let start: Int
            /// The bytes after the header (after `largesize` when present).
            let content: Range<Int>
        }

        /// The box whose header starts at `offset`, which must end at or before
        /// `limit`. Handles 32-bit sizes, 64-bit `largesize` (size 1) and
        /// "to the end of the container" (size 0). `nil` when the header is
        /// incomplete or the size is impossible.
        static func box(in reader: ByteReader, at offset: Int, limit: Int) -> Box? {
            guard offset >= 0, offset <= limit, limit <= reader.count, limit - offset >= 8,
                  let size32 = reader.u32be(at: offset),
                  let type = reader.u32be(at: offset + 4)
            else { return nil }
            let headerLength: Int
            let size: UInt64
            switch size32 {
            case 0:
                headerLength = 8
                size = UInt64(limit - offset)
            case 1:
                guard limit - offset >= 16, let large = reader.u64be(at: offset + 8) else { return nil }
                headerLength = 16
                size = large
            default:
                headerLength = 8
                size = UInt64(size32)
            }
            guard size >= UInt64(headerLength), let length = Int(exactly: size), length <= limit - offset else {
                return nil
            }
            return Box(type: type, start: offset, content: (offset + headerLength)..<(offset + length))
        }

        /// The child boxes filling `range`, or `nil` when one of them overruns it.
        /// Fewer than 8 trailing bytes are ignored as padding.
        static func children(in reader: ByteReader, of range: Range<Int>) -> [Box]? {
            var boxes: [Box] = []
            var offset = range.lowerBound
            while range.upperBound - offset >= 8 {
                guard let child = box(in: reader, at: offset, limit: range.upperBound) else { return nil }
                boxes.append(child)
                offset = child.content.upperBound
            }
            return boxes
        }

        /// Reads the brand from `ftyp` and the primary image size from `meta`.
        static func inspect(_ reader: ByteReader) -> ImageInfo? {
            guard let ftyp = box(in: reader, at: 0, limit: reader.count), ftyp.type == BoxType.ftyp,
                  let format = format(reader, ftyp: ftyp)
            else { return nil }
            var offset = ftyp.content.upperBound
            while let top = box(in: reader, at: offset, limit: reader.count) {
                if top.type == BoxType.meta {
                    return size(reader, meta: top).map { ImageInfo(format: format, width: $0.width, height: $0.height) }
                }
                offset = top.content.upperBound
            }
            return nil
        }

        /// `.heic` for an HEVC major brand (or a generic major brand listing an
        /// HEVC compatible brand), `.heif` for a generic major brand, otherwise `nil`
        /// (e.g. AVIF, MP4 and QuickTime files).
        private static func format(_ reader: ByteReader, ftyp: Box) -> ImageFormat? {
            guard ftyp.content.count >= 8, let major = reader.u32be(at: ftyp.content.lowerBound) else { return nil }
            if heicBrands.contains(major) { return .heic }
            guard heifBrands.contains(major) else { return nil }
            var offset = ftyp.content.lowerBound + 8
            while offset + 4 <= ftyp.content.upperBound, let brand = reader.u32be(at: offset) {
                if heicBrands.contains(brand) { return .heic }
                offset += 4
            }
            return .heif
        }

        /// The primary item's `ispe`, or the largest valid `ispe` when the primary
        /// item or its association cannot be determined.
        private static func size(_ reader: ByteReader, meta: Box) -> (width: Int, height: Int)? {
            // `meta` is a full box: 1 byte version + 3 bytes flags precede its children.
            guard meta.content.count >= 4,
                  let metaChildren = children(in: reader, of: (meta.content.lowerBound + 4)..<meta.content.upperBound),
                  let iprp = metaChildren.first(where: { $0.type == BoxType.iprp }),
                  let iprpChildren = children(in: reader, of: iprp.content),
                  let ipco = iprpChildren.first(where: { $0.type == BoxType.ipco }),
                  let properties = children(in: reader, of: ipco.content)
            else { return nil }

            // Valid ispe sizes keyed by their 1-based property index (as used by ipma), in file order.
            var extents: [(index: Int, width: Int, height: Int)] = []
            for (index, property) in properties.enumerated() where property.type == BoxType.ispe {
                if let size = spatialExtents(reader, ispe: property) {
                    extents.append((index + 1, size.width, size.height))
                }
            }

            if let pitm = metaChildren.first(where: { $0.type == BoxType.pitm }),
               let primary = primaryItem(reader, pitm: pitm) {
                let byIndex = Dictionary(extents.map { ($0.index, ($0.width, $0.height)) }) { first, _ in first }
                for ipma in iprpChildren where ipma.type == BoxType.ipma {
                    let associated = propertyIndices(reader, ipma: ipma, item: primary) ?? []
                    if let size = associated.lazy.compactMap({ byIndex[$0] }).first {
                        return size
                    }
                }
            }
            // Fallback: the first of the largest extents.
            var largest: (width: Int, height: Int)?
            var largestArea: UInt64 = 0
            for extent in extents {
                let area = UInt64(extent.width) * UInt64(extent.height)
                if area > largestArea {
                    largest = (extent.width, extent.height)
                    largestArea = area
                }
            }
            return largest
        }

        /// `ispe`: full-box header, then 32-bit width and height, both non-zero.
        private static func spatialExtents(_ reader: ByteReader, ispe: Box) -> (width: Int, height: Int)? {
            let start = ispe.content.lowerBound
            guard ispe.content.count >= 12,
                  let width = reader.u32be(at: start + 4), let height = reader.u32be(at: start + 8),
                  width > 0, height > 0,
                  let w = Int(exactly: width), let h = Int(exactly: height)
            else { return nil }
            return (w, h)
        }

        /// `pitm`: the primary item ID (16-bit in version 0, 32-bit otherwise).
        private static func primaryItem(_ reader: ByteReader, pitm: Box) -> UInt32? {
            let start = pitm.content.lowerBound
            guard let version = reader.u8(at: start) else { return nil }
            if version == 0 {
                guard pitm.content.count >= 6, let id = reader.u16be(at: start + 4) else { return nil }
                return UInt32(id)
            }
            guard pitm.content.count >= 8 else { return nil }
            return reader.u32be(at: start + 4)
        }

        /// `ipma`: the 1-based property indices associated with `item`, or `nil`
        /// when the box is malformed.
        private static func propertyIndices(_ reader: ByteReader, ipma: Box, item: UInt32) -> [Int]? {
            let end = ipma.content.upperBound
            var offset = ipma.content.lowerBound
            // Reads `length` bytes (1, 2 or 4) as a big-endian integer within the box.
            func read(_ length: Int) -> UInt32? {
                guard offset <= end - length else { return nil }
                defer { offset += length }
                switch length {
                case 1: return reader.u8(at: offset).map(UInt32.init)
                case 2: return reader.u16be(at: offset).map(UInt32.init)
                default: return reader.u32be(at: offset)
                }
            }
            guard let version = read(1), let flags = reader.u24be(at: offset), read(3) != nil,
                  var remaining = read(4)
            else { return nil }
            let wideIndices = flags & 1 == 1
            while remaining > 0 {
                remaining -= 1
                guard let id = read(version < 1 ? 2 : 4), let count = read(1) else { return nil }
                var indices: [Int] = []
                for _ in 0..<count {
                    guard let value = read(wideIndices ? 2 : 1) else { return nil }
                    indices.append(Int(value & (wideIndices ? 0x7FFF : 0x7F)))
                }
                if id == item { return indices }
            }
            return []
        }
    }
}
