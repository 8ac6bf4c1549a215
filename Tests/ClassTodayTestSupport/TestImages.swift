import Foundation
import ClassTodayCore

/// Builders for tiny, structurally valid image files, made in memory.
///
/// Used by the image tests here and by the server tests (uploads). Every
/// builder returns the complete file as bytes. The images are not meant to be
/// pretty: they only have to be parseable by ``ImageInspector`` and
/// structurally valid for their format.
public enum TestImages {
    /// Byte order of the EXIF TIFF structure in ``jpeg(width:height:withGPS:orientation:byteOrder:withEXIF:withXMP:scanData:)``.
    public enum ByteOrder: Sendable, CaseIterable {
        /// `II` (Intel), as written by most phones.
        case littleEndian
        /// `MM` (Motorola).
        case bigEndian
    }

    /// The camera maker written into the JPEG EXIF (`Make`).
    public static let make = "ClassToday"
    /// The camera model written into the JPEG EXIF (`Model`).
    public static let model = "Tutor Cam 3"
    /// The date written into the JPEG EXIF (`DateTime`, `DateTimeOriginal`).
    public static let dateTime = "2024:05:01 10:00:00"
    /// GPSLatitude in the JPEG EXIF: 48° 51' 29.64" (Paris).
    public static let latitude: [(UInt32, UInt32)] = [(48, 1), (51, 1), (2964, 100)]
    /// GPSLongitude in the JPEG EXIF: 2° 17' 40.20".
    public static let longitude: [(UInt32, UInt32)] = [(2, 1), (17, 1), (4020, 100)]
    /// The four bytes of the fake EXIF thumbnail (IFD1).
    public static let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
    /// The XMP packet written by `jpeg(withXMP: true)`; it mentions a location.
    public static let xmpPacket = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.494N" exif:GPSLongitude="2,17.67E"/></rdf:RDF></x:xmpmeta>"#

    // MARK: JPEG

    /// A baseline JPEG: SOI, APP1 EXIF (Make, Model, Orientation, DateTime,
    /// EXIF sub-IFD, optionally a GPS IFD with latitude/longitude/altitude, and
    /// IFD1 with a 4-byte thumbnail), optional XMP APP1, DQT, SOF0 (one
    /// component), DHT, SOS, scan data, EOI.
    ///
    /// For images up to 512×512 blocks the scan data really decodes (a flat
    /// grey image); larger sizes get a short placeholder scan.
    /// - Parameters:
    ///   - width: 1...65535.
    ///   - height: 1...65535.
    ///   - scanData: entropy-coded bytes to use instead of the generated ones.
    public static func jpeg(
        width: Int = 8,
        height: Int = 6,
        withGPS: Bool = true,
        orientation: UInt16 = 6,
        byteOrder: ByteOrder = .littleEndian,
        withEXIF: Bool = true,
        withXMP: Bool = false,
        scanData: [UInt8]? = nil
    ) -> [UInt8] {
        var file: [UInt8] = [0xFF, 0xD8]
        if withEXIF {
            file += jpegSegment(0xE1, Array("Exif\0\0".utf8) + exifTIFF(width: width, height: height, withGPS: withGPS, orientation: orientation, byteOrder: byteOrder))
        }
        if withXMP {
            file += jpegSegment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmpPacket.utf8))
        }
        file += jpegSegment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        file += jpegSegment(0xC0, [8] + be16(height) + be16(width) + [1, 1, 0x11, 0])
        // One DC and one AC table, each with a single 1-bit code for symbol 0.
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        file += jpegSegment(0xC4, [0x00] + oneCode + [0x10] + oneCode)
        file += jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0])
        file += scanData ?? flatScan(width: width, height: height)
        file += [0xFF, 0xD9]
        return file
    }

    /// A marker segment: `FF marker`, big-endian length (payload + 2), payload.
    public static func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    /// Entropy data for a flat image: per 8×8 block, DC category 0 and EOB
    /// (two 0 bits), padded with 1 bits.
    private static func flatScan(width: Int, height: Int) -> [UInt8] {
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        guard blocks <= 512 * 512 else { return [0x00, 0x3F] }
        let bits = blocks * 2
        var bytes = [UInt8](repeating: 0, count: (bits + 7) / 8)
        if bits % 8 != 0 {
            bytes[bytes.count - 1] = UInt8(0xFF >> (bits % 8))
        }
        return bytes
    }

    /// The EXIF GPSLatitude value bytes as stored in the TIFF (three RATIONALs).
    public static func latitudeBytes(_ byteOrder: ByteOrder) -> [UInt8] {
        TIFFBuilder.Value.rational(latitude).encoded(bigEndian: byteOrder == .bigEndian)
    }

    /// The EXIF TIFF structure used by ``jpeg(width:height:withGPS:orientation:byteOrder:withEXIF:withXMP:scanData:)``.
    public static func exifTIFF(width: Int, height: Int, withGPS: Bool, orientation: UInt16, byteOrder: ByteOrder) -> [UInt8] {
        var builder = TIFFBuilder(bigEndian: byteOrder == .bigEndian)
        // Directory indices: 0 IFD0, 1 EXIF, 2 IFD1, 3 GPS (when present).
        var ifd0: [(UInt16, TIFFBuilder.Value)] = [
            (0x010F, .ascii(make)),
            (0x0110, .ascii(model)),
            (0x0112, .short([orientation])),
            (0x0132, .ascii(dateTime)),
            (0x8769, .directory(1)),
        ]
        if withGPS {
            ifd0.append((0x8825, .directory(3)))
        }
        builder.directories.append(.init(entries: ifd0, next: 2))
        builder.directories.append(.init(entries: [
            (0x9003, .ascii(dateTime)),
            (0xA002, .long([UInt32(width)])),
            (0xA003, .long([UInt32(height)])),
        ]))
        builder.directories.append(.init(entries: [
            (0x0103, .short([6])),
            (0x0201, .extraOffset),
            (0x0202, .long([UInt32(thumbnail.count)])),
        ]))
        if withGPS {
            builder.directories.append(.init(entries: [
                (0x0000, .byte([2, 3, 0, 0])),
                (0x0001, .ascii("N")),
                (0x0002, .rational(latitude)),
                (0x0003, .ascii("E")),
                (0x0004, .rational(longitude)),
                (0x0006, .rational([(35, 1)])),
            ]))
        }
        builder.extra = thumbnail
        return builder.build()
    }

    /// Lays out a TIFF structure: header, then each directory's table
    /// followed by its out-of-line values, then `extra` (e.g. a thumbnail).
    struct TIFFBuilder {
        /// A field value.
        enum Value {
            /// BYTE values.
            case byte([UInt8])
            /// An ASCII string (the NUL terminator is added).
            case ascii(String)
            /// SHORT values.
            case short([UInt16])
            /// LONG values.
            case long([UInt32])
            /// RATIONAL values (numerator, denominator).
            case rational([(UInt32, UInt32)])
            /// A LONG pointing to `directories[index]`.
            case directory(Int)
            /// A LONG pointing to `extra`.
            case extraOffset

            /// TIFF field type.
            var type: UInt16 {
                switch self {
                case .byte: 1
                case .ascii: 2
                case .short: 3
                case .long, .directory, .extraOffset: 4
                case .rational: 5
                }
            }

            /// Number of values.
            var count: Int {
                switch self {
                case let .byte(values): values.count
                case let .ascii(text): text.utf8.count + 1
                case let .short(values): values.count
                case let .long(values): values.count
                case let .rational(values): values.count
                case .directory, .extraOffset: 1
                }
            }

            /// Encoded bytes; pointers are encoded with `pointer`.
            func encoded(bigEndian: Bool, pointer: UInt32 = 0) -> [UInt8] {
                let u16 = { (value: UInt16) in bigEndian ? be16(Int(value)) : be16(Int(value)).reversed() }
                let u32 = { (value: UInt32) in bigEndian ? be32(value) : be32(value).reversed() }
                switch self {
                case let .byte(values): return values
                case let .ascii(text): return Array(text.utf8) + [0]
                case let .short(values): return values.flatMap(u16)
                case let .long(values): return values.flatMap(u32)
                case let .rational(values): return values.flatMap { u32($0.0) + u32($0.1) }
                case .directory, .extraOffset: return u32(pointer)
                }
            }
        }

        /// One directory: entries (sorted by tag) and the index of the next directory.
        struct Directory {
            /// (tag, value) pairs, sorted by tag.
            var entries: [(UInt16, Value)]
            /// Index in `directories` of the next directory (IFD0 -> IFD1), if any.
            var next: Int?

            /// Table bytes plus out-of-line values (each padded to even length).
            var size: Int {
                entries.reduce(2 + 12 * entries.count + 4) { total, entry in
                    let length = entry.1.encoded(bigEndian: false).count
                    return total + (length > 4 ? length + length % 2 : 0)
                }
            }
        }

        /// `true` for `MM`, `false` for `II`.
        let bigEndian: Bool
        /// The directories, IFD0 first.
        var directories: [Directory] = []
        /// Bytes appended after the directories.
        var extra: [UInt8] = []

        /// The TIFF bytes.
        func build() -> [UInt8] {
            var offsets: [Int] = []
            var cursor = 8
            for directory in directories {
                offsets.append(cursor)
                cursor += directory.size
            }
            let extraOffset = cursor
            let u16 = { (value: Int) in bigEndian ? be16(value) : be16(value).reversed() }
            let u32 = { (value: Int) in bigEndian ? be32(UInt32(value)) : be32(UInt32(value)).reversed() }

            var out: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(offsets.first ?? 0)
            for (index, directory) in directories.enumerated() {
                var table = u16(directory.entries.count)
                var data: [UInt8] = []
                let dataStart = offsets[index] + 2 + 12 * directory.entries.count + 4
                for (tag, value) in directory.entries {
                    let pointer: Int = switch value {
                    case let .directory(target): offsets[target]
                    case .extraOffset: extraOffset
                    default: 0
                    }
                    var bytes = value.encoded(bigEndian: bigEndian, pointer: UInt32(pointer))
                    table += u16(Int(tag)) + u16(Int(value.type)) + u32(value.count)
                    if bytes.count <= 4 {
                        table += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                    } else {
                        table += u32(dataStart + data.count)
                        if bytes.count % 2 == 1 { bytes.append(0) }
                        data += bytes
                    }
                }
                table += u32(directory.next.map { offsets[$0] } ?? 0)
                out += table + data
            }
            return out + extra
        }
    }

    // MARK: PNG

    /// A PNG: signature, IHDR (8-bit greyscale), IDAT, IEND, all with correct
    /// CRCs. Up to one megapixel the IDAT holds a real zlib stream of black
    /// pixels (stored blocks); larger sizes get an empty zlib stream.
    /// - Parameters:
    ///   - width: 1...2^31-1.
    ///   - height: 1...2^31-1.
    public static func png(width: Int = 8, height: Int = 6) -> [UInt8] {
        var raw: [UInt8] = []
        if width * height <= 1 << 20 {
            raw = [UInt8](repeating: 0, count: (width + 1) * height) // filter byte 0 + pixels per row
        }
        var file = ImageInspector.PNG.signature
        file += pngChunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 0, 0, 0, 0])
        file += pngChunk("IDAT", zlibStored(raw))
        file += pngChunk("IEND", [])
        return file
    }

    /// ``png(width:height:)`` with `chunks` (each from ``pngChunk(_:_:)``: an `eXIf`, text chunks...) between its
    /// IHDR and IDAT chunks, and `trailer` after IEND.
    public static func png(width: Int = 8, height: Int = 6, inserting chunks: [[UInt8]], trailer: [UInt8] = []) -> [UInt8] {
        let plain = png(width: width, height: height)
        let afterHeader = ImageInspector.PNG.signature.count + 25
        return Array(plain[..<afterHeader]) + chunks.joined() + plain[afterHeader...] + trailer
    }

    /// ``webpExtended(width:height:)`` with `metadata` chunks (`EXIF`, `XMP `, `ICCP`) after its image chunk and their
    /// flags set in its `VP8X` header.
    public static func webpExtended(width: Int = 8, height: Int = 6, metadata: [(String, [UInt8])]) -> [UInt8] {
        let flags: [String: UInt8] = ["ICCP": 0x20, "EXIF": 0x08, "XMP ": 0x04]
        let header: [UInt8] = [metadata.reduce(0x10) { $0 | (flags[$1.0] ?? 0) }, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        return riffWebP([("VP8X", header), ("VP8L", vp8lPayload(width: width, height: height, alpha: true))] + metadata)
    }

    /// A PNG chunk: length, type, data, CRC-32 of type and data.
    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(ImageInspector.PNG.crc32(body))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65535, data.count)
            let length = end - start
            out.append(end == data.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[start..<end]
            start = end
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(b << 16 | a)
    }

    // MARK: WebP

    /// A lossy WebP (`VP8 ` key-frame header; the bitstream itself is a stub).
    /// - Parameters:
    ///   - width: 1...16383.
    ///   - height: 1...16383.
    public static func webpLossy(width: Int = 8, height: Int = 6) -> [UInt8] {
        // Frame tag: key frame, version 0, shown, first partition of 4 bytes.
        let frameTag: [UInt8] = [0x90, 0x00, 0x00]
        let payload = frameTag + [0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [0, 0, 0, 0]
        return riffWebP([("VP8 ", payload)])
    }

    /// A lossless WebP (`VP8L`) that really decodes (an opaque black image).
    /// - Parameters:
    ///   - width: 1...16384.
    ///   - height: 1...16384.
    public static func webpLossless(width: Int = 8, height: Int = 6, alpha: Bool = false) -> [UInt8] {
        riffWebP([("VP8L", vp8lPayload(width: width, height: height, alpha: alpha))])
    }

    /// An extended WebP: `VP8X` with the canvas size, followed by a `VP8L`
    /// image chunk (its size clamped to the 14-bit VP8L limit, so the file
    /// only decodes up to 16384×16384).
    /// - Parameters:
    ///   - width: 1...2^24.
    ///   - height: 1...2^24.
    public static func webpExtended(width: Int = 8, height: Int = 6) -> [UInt8] {
        let header: [UInt8] = [0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1) // flags: alpha
        let image = vp8lPayload(width: min(width, 16384), height: min(height, 16384), alpha: true)
        return riffWebP([("VP8X", header), ("VP8L", image)])
    }

    /// VP8L signature, packed size/alpha/version bits, then a real bitstream
    /// for an opaque black image of any size: no transforms, no colour cache,
    /// no meta prefix codes, and five single-symbol "simple" prefix codes
    /// (green, red, blue = 0, alpha = 255, distance = 0), so every pixel takes
    /// zero bits.
    private static func vp8lPayload(width: Int, height: Int, alpha: Bool) -> [UInt8] {
        let header = UInt32(width - 1) | UInt32(height - 1) << 14 | (alpha ? 1 << 28 : 0)
        // (value, bit count), written least significant bit first.
        var fields: [(UInt32, Int)] = [(0, 1), (0, 1), (0, 1)] // transform, colour cache, meta codes
        for _ in 0..<3 { // green, red, blue: simple, 1 symbol, 1-bit symbol 0
            fields += [(1, 1), (0, 1), (0, 1), (0, 1)]
        }
        fields += [(1, 1), (0, 1), (1, 1), (255, 8)] // alpha: simple, 1 symbol, 8-bit symbol 255
        fields += [(1, 1), (0, 1), (0, 1), (0, 1)] // distance
        var stream: [UInt8] = []
        var bitCount = 0
        for (value, count) in fields {
            for bit in 0..<count {
                if bitCount % 8 == 0 { stream.append(0) }
                stream[stream.count - 1] |= UInt8((value >> UInt32(bit)) & 1) << UInt8(bitCount % 8)
                bitCount += 1
            }
        }
        return [0x2F] + be32(header).reversed() + stream
    }

    /// `RIFF` size `WEBP` followed by the chunks (each padded to even length).
    private static func riffWebP(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var body = Array("WEBP".utf8)
        for (type, payload) in chunks {
            body += Array(type.utf8) + be32(UInt32(payload.count)).reversed() + payload
            if payload.count % 2 == 1 { body.append(0) }
        }
        return Array("RIFF".utf8) + be32(UInt32(body.count)).reversed() + body
    }

    // MARK: HEIC / HEIF

    /// A HEIF file: `ftyp`, `meta` (hdlr, pitm, iinf, iprp with ipco/ipma) and
    /// a stub `mdat`. Item 1 is the primary image with an `ispe` of
    /// `width`×`height`; item 2 (when `thumbnail` is set) a thumbnail with its
    /// own `ispe`, listed first in `ipco`.
    /// - Parameters:
    ///   - width: 1...2^32-1.
    ///   - height: 1...2^32-1.
    ///   - majorBrand: four characters, e.g. `heic`, `mif1`, `avif`.
    ///   - compatibleBrands: four-character brands.
    ///   - thumbnail: the thumbnail's size, or `nil` for none.
    ///   - primaryItem: whether to write `pitm` (without it the largest `ispe` is used).
    ///   - largeSize: write `meta` and `mdat` with 64-bit `largesize` headers.
    public static func heic(
        width: Int = 8,
        height: Int = 6,
        majorBrand: String = "heic",
        compatibleBrands: [String] = ["mif1", "heic"],
        thumbnail: (width: Int, height: Int)? = (4, 3),
        primaryItem: Bool = true,
        largeSize: Bool = false
    ) -> [UInt8] {
        let ftyp = box("ftyp", Array(majorBrand.utf8) + [0, 0, 0, 0] + compatibleBrands.flatMap { Array($0.utf8) })
        let hdlr = fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = fullBox("pitm", be16(1))
        let itemCount = thumbnail == nil ? 1 : 2
        var infos: [UInt8] = []
        for id in 1...itemCount {
            infos += fullBox("infe", be16(id) + be16(0) + Array("hvc1".utf8) + [0], version: 2)
        }
        let iinf = fullBox("iinf", be16(itemCount) + infos)
        let hvcC = box("hvcC", [1, 1, 0x60, 0, 0, 0])
        var properties = hvcC // property 1
        var associations: [UInt8]
        if let thumbnail {
            properties += ispe(thumbnail.width, thumbnail.height) // property 2
            properties += ispe(width, height) // property 3
            associations = be32(2) + be16(1) + [2, 0x81, 0x03] + be16(2) + [2, 0x81, 0x02]
        } else {
            properties += ispe(width, height) // property 2
            associations = be32(1) + be16(1) + [2, 0x81, 0x02]
        }
        let iprp = box("iprp", box("ipco", properties) + fullBox("ipma", associations))
        let metaChildren = hdlr + (primaryItem ? pitm : []) + iinf + iprp
        let meta = box("meta", [0, 0, 0, 0] + metaChildren, largeSize: largeSize)
        let mdat = box("mdat", [0, 0, 0, 4, 0x26, 0x01, 0xAF, 0x00], largeSize: largeSize)
        return ftyp + meta + mdat
    }

    /// A generic HEIF (`mif1` brand only), otherwise like ``heic(width:height:majorBrand:compatibleBrands:thumbnail:primaryItem:largeSize:)``.
    public static func heif(width: Int = 8, height: Int = 6) -> [UInt8] {
        heic(width: width, height: height, majorBrand: "mif1", compatibleBrands: ["mif1"])
    }

    /// An `ispe` property.
    private static func ispe(_ width: Int, _ height: Int) -> [UInt8] {
        fullBox("ispe", be32(UInt32(width)) + be32(UInt32(height)))
    }

    /// An ISO-BMFF box with a 32-bit size, or a 64-bit `largesize` when asked.
    public static func box(_ type: String, _ content: [UInt8], largeSize: Bool = false) -> [UInt8] {
        if largeSize {
            return be32(1) + Array(type.utf8) + be32(0) + be32(UInt32(content.count + 16)) + content
        }
        return be32(UInt32(content.count + 8)) + Array(type.utf8) + content
    }

    /// An ISO-BMFF full box (version byte and zero flags before the content).
    public static func fullBox(_ type: String, _ content: [UInt8], version: UInt8 = 0) -> [UInt8] {
        box(type, [version, 0, 0, 0] + content)
    }

    // MARK: Integers

    /// Big-endian 16-bit encoding of the low 16 bits of `value`.
    public static func be16(_ value: Int) -> [UInt8] {
        [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Little-endian 16-bit encoding of the low 16 bits of `value`.
    public static func le16(_ value: Int) -> [UInt8] {
        be16(value).reversed()
    }

    /// Little-endian 24-bit encoding of the low 24 bits of `value`.
    public static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)]
    }

    /// Big-endian 32-bit encoding.
    public static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
