import Foundation
import Testing
@testable import ClassTodayCore
@testable import ClassTodayTestSupport

/// Suite: JPEGLocationScrubber.
@Suite("JPEGLocationScrubber")
struct JPEGLocationScrubberTests {
    /// The TIFF structures of all EXIF APP1 segments in `jpeg`.
    static func exifTIFFs(in jpeg: [UInt8]) -> [JPEGLocationScrubber.TIFF] {
        var result: [JPEGLocationScrubber.TIFF] = []
        ImageInspector.JPEG.walk(ImageInspector.ByteReader(jpeg)) { part in
            if case let .segment(0xE1, _, payload) = part, jpeg[payload].starts(with: Array("Exif".utf8)),
               let tiff = JPEGLocationScrubber.TIFF(Array(jpeg[payload].dropFirst(6))) {
                result.append(tiff)
            }
            return true
        }
        return result
    }

    /// The first EXIF TIFF of `jpeg` and its IFD0.
    static func firstIFD(of jpeg: [UInt8]) throws -> (JPEGLocationScrubber.TIFF, JPEGLocationScrubber.TIFF.IFD) {
        let tiff = try #require(exifTIFFs(in: jpeg).first)
        let ifd0 = try #require(tiff.ifd(at: tiff.firstIFDOffset))
        return (tiff, ifd0)
    }

    /// The NUL-terminated ASCII value of `tag` in `ifd`.
    static func ascii(_ tag: UInt16, in ifd: JPEGLocationScrubber.TIFF.IFD, _ tiff: JPEGLocationScrubber.TIFF) -> String? {
        guard let entry = ifd.entries.first(where: { $0.tag == tag }), entry.type == 2 else { return nil }
        let bytes: ArraySlice<UInt8>
        switch tiff.valueLocation(of: entry) {
        case .inline: bytes = tiff.bytes[(entry.offset + 8)..<(entry.offset + 8 + Int(entry.count))]
        case let .external(range): bytes = tiff.bytes[range]
        case .outOfBounds: return nil
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The first SHORT value of `tag` in `ifd`.
    static func short(_ tag: UInt16, in ifd: JPEGLocationScrubber.TIFF.IFD, _ tiff: JPEGLocationScrubber.TIFF) -> UInt16? {
        guard let entry = ifd.entries.first(where: { $0.tag == tag }), entry.type == 3 else { return nil }
        return tiff.u16(at: entry.offset + 8)
    }

    /// Whether `needle` occurs anywhere in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Tests: GPS removed, other tags and image data kept.
    @Test("GPS removed, other tags and image data kept", arguments: TestImages.ByteOrder.allCases)
    func removesGPS(order: TestImages.ByteOrder) throws {
        let original = TestImages.jpeg(width: 40, height: 30, orientation: 6, byteOrder: order)
        #expect(JPEGLocationScrubber.containsLocationMetadata(original))
        #expect(Self.contains(original, TestImages.latitudeBytes(order)))
        let (beforeTIFF, before) = try Self.firstIFD(of: original)
        #expect(before.entries.contains { $0.tag == 0x8825 })

        let scrubbed = JPEGLocationScrubber.removingLocation(from: original)
        #expect(!JPEGLocationScrubber.containsLocationMetadata(scrubbed))
        #expect(!Self.contains(scrubbed, TestImages.latitudeBytes(order)))
        #expect(scrubbed.count == original.count)
        #expect(ImageInspector.inspect(scrubbed) == ImageInfo(format: .jpeg, width: 40, height: 30))

        let (tiff, ifd0) = try Self.firstIFD(of: scrubbed)
        #expect(tiff.bigEndian == (order == .bigEndian))
        #expect(ifd0.entries.count == before.entries.count - 1)
        #expect(!ifd0.entries.contains { $0.tag == 0x8825 })
        #expect(ifd0.entries.map(\.tag) == before.entries.map(\.tag).filter { $0 != 0x8825 })
        #expect(Self.short(0x0112, in: ifd0, tiff) == 6)
        #expect(Self.ascii(0x010F, in: ifd0, tiff) == "ClassToday")
        #expect(Self.ascii(0x0110, in: ifd0, tiff) == "Tutor Cam 3")
        #expect(Self.ascii(0x0132, in: ifd0, tiff) == "2024:05:01 10:00:00")

        // The remaining entries are byte-identical, just shifted; the next-IFD
        // offset is unchanged and still leads to IFD1 and its thumbnail.
        for (old, new) in zip(before.entries.filter { $0.tag != 0x8825 }, ifd0.entries) {
            #expect(beforeTIFF.bytes[old.offset..<(old.offset + 12)] == tiff.bytes[new.offset..<(new.offset + 12)])
        }
        #expect(tiff.u32(at: ifd0.nextOffsetField) == beforeTIFF.u32(at: before.nextOffsetField))
        let ifd1 = try #require(tiff.u32(at: ifd0.nextOffsetField).flatMap { tiff.ifd(at: Int($0)) })
        #expect(Self.short(0x0103, in: ifd1, tiff) == 6)
        let thumbnailOffset = try #require(ifd1.entries.first { $0.tag == 0x0201 }.flatMap { tiff.u32(at: $0.offset + 8) })
        #expect(Array(tiff.bytes[Int(thumbnailOffset)..<(Int(thumbnailOffset) + 4)]) == TestImages.thumbnail)

        // EXIF sub-IFD untouched.
        let exifPointer = try #require(ifd0.entries.first { $0.tag == 0x8769 })
        let exif = try #require(tiff.ifd(pointedToBy: exifPointer))
        #expect(Self.ascii(0x9003, in: exif, tiff) == "2024:05:01 10:00:00")

        // Only bytes inside the TIFF changed: APP1 header and everything after it are identical.
        let tiffStart = 12
        let tiffEnd = 4 + (Int(original[4]) << 8 | Int(original[5]))
        #expect(scrubbed[..<tiffStart] == original[..<tiffStart])
        #expect(scrubbed[tiffEnd...] == original[tiffEnd...])
        // ...and inside it, only the IFD0 table and the GPS structure changed.
        let changed = (tiffStart..<tiffEnd).filter { scrubbed[$0] != original[$0] }.map { $0 - tiffStart }
        let gpsIFDOffset = try #require(before.entries.first { $0.tag == 0x8825 }.flatMap { beforeTIFF.u32(at: $0.offset + 8) })
        let gps = try #require(beforeTIFF.ifd(at: Int(gpsIFDOffset)))
        var gpsBytes = Set(gps.tableRange)
        for entry in gps.entries {
            if case let .external(range) = beforeTIFF.valueLocation(of: entry) { gpsBytes.formUnion(range) }
        }
        #expect(changed.allSatisfy { before.tableRange.contains($0) || gpsBytes.contains($0) })
        #expect(gpsBytes.allSatisfy { tiff.bytes[$0] == 0 })
    }

    /// Tests: scrubbing is idempotent.
    @Test("scrubbing is idempotent", arguments: TestImages.ByteOrder.allCases)
    func idempotent(order: TestImages.ByteOrder) {
        for input in [TestImages.jpeg(byteOrder: order), TestImages.jpeg(byteOrder: order, withXMP: true), TestImages.jpeg(withGPS: false)] {
            let once = JPEGLocationScrubber.removingLocation(from: input)
            #expect(JPEGLocationScrubber.removingLocation(from: once) == once)
        }
    }

    /// Tests: JPEGs without GPS or without EXIF are returned unchanged.
    @Test("JPEGs without GPS or without EXIF are returned unchanged")
    func unchanged() {
        for input in [
            TestImages.jpeg(withEXIF: false),
            TestImages.jpeg(withGPS: false),
            TestImages.jpeg(withGPS: false, byteOrder: .bigEndian),
            TestImages.jpeg(width: 1000, height: 1, withGPS: false, orientation: 1),
        ] {
            #expect(JPEGLocationScrubber.removingLocation(from: input) == input)
            #expect(!JPEGLocationScrubber.containsLocationMetadata(input))
        }
    }

    /// Tests: non-JPEG input is returned unchanged.
    @Test("non-JPEG input is returned unchanged")
    func notJPEG() {
        for input in [[], [0xFF], TestImages.png(), TestImages.heic(), Array("Exif\0\0 text".utf8)] {
            #expect(JPEGLocationScrubber.removingLocation(from: input) == input)
        }
    }

    /// Tests: XMP packets are dropped.
    @Test("XMP packets are dropped")
    func dropsXMP() {
        let input = TestImages.jpeg(withGPS: false, withXMP: true)
        #expect(JPEGLocationScrubber.containsLocationMetadata(input))
        let scrubbed = JPEGLocationScrubber.removingLocation(from: input)
        #expect(!Self.contains(scrubbed, Array("http://ns.adobe.com/xap/1.0/".utf8)))
        #expect(!Self.contains(scrubbed, Array("GPSLatitude".utf8)))
        #expect(scrubbed == TestImages.jpeg(withGPS: false))

        let extended = [0xFF, 0xD8] + TestImages.jpegSegment(0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8) + [UInt8](repeating: 0x41, count: 40))
            + TestImages.jpeg(withEXIF: false).dropFirst(2)
        #expect(JPEGLocationScrubber.removingLocation(from: extended) == TestImages.jpeg(withEXIF: false))
    }

    /// Tests: MPF index and data after EOI are dropped.
    @Test("MPF index and data after EOI are dropped")
    func dropsTrailer() {
        let base = TestImages.jpeg(withGPS: false)
        let mpf = TestImages.jpegSegment(0xE2, Array("MPF\0".utf8) + [0x49, 0x49, 0x2A, 0])
        let withMPF = Array(base[..<2]) + mpf + base[2...] + TestImages.jpeg() // second image with GPS
        #expect(JPEGLocationScrubber.removingLocation(from: withMPF) == base)
        let icc = TestImages.jpegSegment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1, 0, 0])
        let withICC = Array(base[..<2]) + icc + base[2...]
        #expect(JPEGLocationScrubber.removingLocation(from: withICC) == withICC)
    }

    /// Tests: malformed EXIF segments are removed entirely.
    @Test("malformed EXIF segments are removed entirely")
    func malformedEXIF() throws {
        let plain = TestImages.jpeg(withEXIF: false)
        func withAPP1(_ payload: [UInt8]) -> [UInt8] {
            [0xFF, 0xD8] + TestImages.jpegSegment(0xE1, payload) + plain.dropFirst(2)
        }
        let broken: [[UInt8]] = [
            Array("Exif".utf8),
            Array("Exif\0\0".utf8),
            Array("Exif\0\0garbage garbage".utf8),
            Array("Exif\0\0II*\0".utf8) + [0xFF, 0xFF, 0, 0], // IFD0 out of bounds
            Array("Exif\0\0MM\0*".utf8) + [0, 0, 0, 4], // IFD0 inside the header
            Array("Exif\0\0II*\0".utf8) + [8, 0, 0, 0] + [0xFF, 0x7F], // IFD0 with 32767 entries
        ]
        for payload in broken {
            #expect(JPEGLocationScrubber.removingLocation(from: withAPP1(payload)) == plain)
            #expect(JPEGLocationScrubber.containsLocationMetadata(withAPP1(payload)))
        }

        // A GPS pointer to nowhere, a duplicate GPS pointer, GPS values
        // overlapping the Make string: the whole EXIF segment goes.
        let gpsPointerTo: (UInt32) -> [UInt8] = { target in
            var builder = TestImages.TIFFBuilder(bigEndian: false)
            builder.directories = [.init(entries: [(0x0112, .short([6])), (0x8825, .long([target]))])]
            return builder.build()
        }
        for target: UInt32 in [4, 9999, 0xFFFF_FFFF] {
            #expect(JPEGLocationScrubber.removingLocation(from: withAPP1(Array("Exif\0\0".utf8) + gpsPointerTo(target))) == plain)
        }
        var duplicate = TestImages.TIFFBuilder(bigEndian: true)
        duplicate.directories = [
            .init(entries: [(0x8825, .directory(1)), (0x8825, .directory(1))]),
            .init(entries: [(0x0001, .ascii("N"))]),
        ]
        #expect(JPEGLocationScrubber.removingLocation(from: withAPP1(Array("Exif\0\0".utf8) + duplicate.build())) == plain)

        var overlapping = TestImages.TIFFBuilder(bigEndian: false)
        overlapping.directories = [
            .init(entries: [(0x010F, .ascii("ClassToday Camera")), (0x8825, .directory(1))]),
            .init(entries: [(0x0002, .rational([(1, 1), (2, 1)]))]),
        ]
        var tiff = overlapping.build()
        // Point GPSLatitude's value at the Make string (IFD0 data starts at 8 + 2 + 24 + 4 = 38).
        // The GPS IFD ends with: value field (4), next-IFD offset (4), then the 16 value bytes.
        let latitudeValueField = tiff.count - 16 - 4 - 4
        #expect(tiff[latitudeValueField] == 74)
        tiff.replaceSubrange(latitudeValueField..<(latitudeValueField + 4), with: [38, 0, 0, 0])
        #expect(JPEGLocationScrubber.removingLocation(from: withAPP1(Array("Exif\0\0".utf8) + tiff)) == plain)
    }

    /// Tests: a GPS pointer of zero is removed without touching anything else.
    @Test("a GPS pointer of zero is removed without touching anything else")
    func zeroGPSPointer() throws {
        var builder = TestImages.TIFFBuilder(bigEndian: false)
        builder.directories = [.init(entries: [(0x0112, .short([3])), (0x8825, .long([0]))])]
        let input = [0xFF, 0xD8] + TestImages.jpegSegment(0xE1, Array("Exif\0\0".utf8) + builder.build()) + TestImages.jpeg(withEXIF: false).dropFirst(2)
        let scrubbed = JPEGLocationScrubber.removingLocation(from: input)
        let (tiff, ifd0) = try Self.firstIFD(of: scrubbed)
        #expect(ifd0.entries.map(\.tag) == [0x0112])
        #expect(Self.short(0x0112, in: ifd0, tiff) == 3)
        #expect(tiff.u32(at: ifd0.nextOffsetField) == 0)
        #expect(scrubbed.count == input.count)
    }

    /// Tests: segments after the first scan are scrubbed too; scan data is kept byte for byte.
    @Test("segments after the first scan are scrubbed too; scan data is kept byte for byte")
    func afterScan() throws {
        let scan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF, 0x00, 0x78, 0xFF, 0xD7]
        let first = TestImages.jpeg(withEXIF: false, scanData: scan)
        let gpsSegment = TestImages.jpegSegment(0xE1, Array("Exif\0\0".utf8)
            + TestImages.exifTIFF(width: 8, height: 6, withGPS: true, orientation: 8, byteOrder: .bigEndian))
        let secondScan = TestImages.jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0]) + [0xAB, 0xFF, 0x00]
        let input = Array(first.dropLast(2)) + [0xFF, 0xFF] + gpsSegment + secondScan + [0xFF, 0xD9]
        #expect(JPEGLocationScrubber.containsLocationMetadata(input))
        let scrubbed = JPEGLocationScrubber.removingLocation(from: input)
        #expect(scrubbed.count == input.count)
        #expect(!JPEGLocationScrubber.containsLocationMetadata(scrubbed))
        #expect(!Self.contains(scrubbed, TestImages.latitudeBytes(.bigEndian)))
        #expect(Self.contains(scrubbed, scan + [0xFF, 0xFF, 0xFF, 0xE1]))
        #expect(scrubbed.suffix(secondScan.count + 2) == input.suffix(secondScan.count + 2))
        let (tiff, ifd0) = try Self.firstIFD(of: scrubbed)
        #expect(Self.short(0x0112, in: ifd0, tiff) == 8)
    }

    /// Tests: multiple EXIF segments are each scrubbed.
    @Test("multiple EXIF segments are each scrubbed")
    func multipleEXIF() {
        let first = TestImages.jpeg(byteOrder: .littleEndian)
        let second = TestImages.jpegSegment(0xE1, Array("Exif\0\0".utf8)
            + TestImages.exifTIFF(width: 8, height: 6, withGPS: true, orientation: 1, byteOrder: .bigEndian))
        let input = Array(first[..<2]) + second + first[2...]
        let scrubbed = JPEGLocationScrubber.removingLocation(from: input)
        #expect(Self.exifTIFFs(in: scrubbed).count == 2)
        #expect(!JPEGLocationScrubber.containsLocationMetadata(scrubbed))
        #expect(!Self.contains(scrubbed, TestImages.latitudeBytes(.bigEndian)))
        #expect(!Self.contains(scrubbed, TestImages.latitudeBytes(.littleEndian)))
    }

    /// Tests: a truncated JPEG is cut at the last intact part.
    @Test("a truncated JPEG is cut at the last intact part")
    func truncated() {
        let input = TestImages.jpeg()
        let exifEnd = 4 + (Int(input[4]) << 8 | Int(input[5]))
        for length in 0..<input.count {
            let prefix = Array(input.prefix(length))
            let scrubbed = JPEGLocationScrubber.removingLocation(from: prefix)
            #expect(!JPEGLocationScrubber.containsLocationMetadata(scrubbed))
            #expect(!Self.contains(scrubbed, TestImages.latitudeBytes(.littleEndian)))
            if length >= 2, length < exifEnd {
                #expect(scrubbed == [0xFF, 0xD8], "prefix \(length)")
            }
        }
    }

    /// Tests: Data overload matches the array version.
    @Test("Data overload matches the array version")
    func dataOverload() {
        let input = TestImages.jpeg(withXMP: true)
        #expect(JPEGLocationScrubber.removingLocation(from: Data(input)) == Data(JPEGLocationScrubber.removingLocation(from: input)))
    }
}
