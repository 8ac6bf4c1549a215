import Foundation

/// Removes location metadata from uploaded JPEG photos before they are stored.
///
/// What is removed:
/// - In every EXIF APP1 segment (`Exif\0\0` + TIFF, either byte order) the
///   GPSInfo pointer (tag `0x8825`) is deleted from IFD0 — later entries move
///   up, the count drops by one, the next-IFD offset follows them — and the GPS
///   directory and the values it points to are overwritten with zeros. The
///   segment keeps its length and nothing else in it moves, so every other tag
///   (Orientation, Make, Model, DateTime, the EXIF sub-IFD, the thumbnail...)
///   stays byte-identical.
/// - XMP APP1 segments (standard and extended), which can carry location too.
/// - MPF APP2 segments and anything after the EOI marker (MPF secondary images
///   and vendor trailers are complete JPEGs with their own, unscrubbed metadata).
///
/// What is never changed: the marker segments not listed above and the
/// entropy-coded image data, so the output decodes to the same pixels.
///
/// Hostile input: an EXIF segment whose GPS data cannot be located safely
/// (bad TIFF header, IFD0 or GPS directory out of bounds, more than one GPS
/// pointer, GPS data overlapping other tags) is dropped entirely. If the
/// marker structure itself breaks (truncated segment, missing marker), the
/// output stops at the last intact part, so no unexamined bytes pass through.
/// Input that does not start with SOI (`FF D8`) is returned unchanged.
///
/// Other places a location may hide (IPTC city names in APP13, maker notes)
/// are out of scope.
public enum JPEGLocationScrubber {
    /// Returns `jpeg` with its GPS and XMP metadata removed as described on
    /// ``JPEGLocationScrubber``. Idempotent; a JPEG without EXIF GPS, XMP, MPF
    /// or trailing data is returned byte-for-byte unchanged.
    public static func removingLocation(from jpeg: [UInt8]) -> [UInt8] {
        let reader = ImageInspector.ByteReader(jpeg)
        guard reader.u8(at: 0) == 0xFF, reader.u8(at: 1) == 0xD8 else { return jpeg }
        var output: [UInt8] = []
        output.reserveCapacity(jpeg.count)
        ImageInspector.JPEG.walk(reader) { part in
            switch part {
            case let .raw(range):
                output.append(contentsOf: jpeg[range])
            case let .segment(marker, whole, payload):
                switch action(marker: marker, payload: jpeg[payload]) {
                case .keep:
                    output.append(contentsOf: jpeg[whole])
                case .drop:
                    break
                case let .replace(newPayload):
                    // Same length as the old payload, so the length field stays right.
                    output.append(contentsOf: jpeg[whole.lowerBound..<payload.lowerBound])
                    output.append(contentsOf: newPayload)
                }
            }
            return true
        }
        return output
    }

    /// `Data` convenience for ``removingLocation(from:)``.
    public static func removingLocation(from jpeg: Data) -> Data {
        Data(removingLocation(from: [UInt8](jpeg)))
    }

    /// Whether `jpeg` carries metadata that ``removingLocation(from:)``
    /// removes for privacy: an EXIF segment with a GPS pointer in IFD0, an EXIF
    /// segment too malformed to tell, or an XMP packet. Only the intact
    /// marker structure is examined (as by the scrubber). Always `false` for
    /// the scrubber's output.
    public static func containsLocationMetadata(_ jpeg: [UInt8]) -> Bool {
        var found = false
        ImageInspector.JPEG.walk(ImageInspector.ByteReader(jpeg)) { part in
            guard case let .segment(marker, _, payload) = part, marker == ImageInspector.JPEG.app1 else { return true }
            let body = jpeg[payload]
            if body.starts(with: SegmentPrefix.exif) {
                switch scrubbedTIFF(Array(body.dropFirst(6))) {
                case .unchanged: break
                case .scrubbed, .malformed: found = true
                }
            } else if isXMP(body) {
                found = true
            }
            return !found
        }
        return found
    }
}

extension JPEGLocationScrubber {
    /// Segment payload prefixes.
    enum SegmentPrefix {
        /// EXIF APP1 (`Exif` followed by two padding bytes, normally `\0\0`).
        static let exif: [UInt8] = Array("Exif".utf8)
        /// Standard XMP APP1.
        static let xmp: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
        /// Extended XMP APP1 (continuation of a large XMP packet).
        static let extendedXMP: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
        /// Multi-Picture Format APP2 (index of images appended after EOI).
        static let mpf: [UInt8] = Array("MPF\0".utf8)
    }

    /// Outcome of scrubbing one TIFF structure.
    enum TIFFScrub: Equatable {
        /// No GPS pointer: leave the segment alone.
        case unchanged
        /// The TIFF with the GPS pointer removed and GPS data zeroed (same length).
        case scrubbed([UInt8])
        /// GPS data cannot be removed safely: drop the whole segment.
        case malformed
    }

    /// Decides the fate of the segment with `marker` and `payload`.
    static func action(marker: UInt8, payload: ArraySlice<UInt8>) -> MetadataEdit {
        switch marker {
        case ImageInspector.JPEG.app1:
            if payload.starts(with: SegmentPrefix.exif) { return locationEdit(ofEXIF: payload) }
            return isXMP(payload) ? .drop : .keep
        case ImageInspector.JPEG.app2:
            return payload.starts(with: SegmentPrefix.mpf) ? .drop : .keep
        default:
            return .keep
        }
    }

    /// What becomes of an EXIF block (JPEG's APP1 segment, PNG's `eXIf` chunk, WebP's `EXIF` chunk): `payload` is a
    /// TIFF structure, after a 6-byte header when it starts with `Exif`. Kept when it has no GPS pointer, given its GPS
    /// data zeroed (same length) when it can be located safely, dropped otherwise.
    static func locationEdit(ofEXIF payload: ArraySlice<UInt8>) -> MetadataEdit {
        let headerLength = payload.starts(with: SegmentPrefix.exif) ? 6 : 0
        guard payload.count >= headerLength else { return .drop }
        switch scrubbedTIFF(Array(payload.dropFirst(headerLength))) {
        case .unchanged: return .keep
        case .malformed: return .drop
        case let .scrubbed(tiff): return .replace(Array(payload.prefix(headerLength)) + tiff)
        }
    }

    /// Whether an APP1 payload is an XMP packet (standard or extended).
    static func isXMP(_ payload: ArraySlice<UInt8>) -> Bool {
        payload.starts(with: SegmentPrefix.xmp) || payload.starts(with: SegmentPrefix.extendedXMP)
    }

    /// Removes the GPS pointer from IFD0 of `bytes` (a TIFF structure) and
    /// zeroes the GPS directory and its out-of-line values.
    static func scrubbedTIFF(_ bytes: [UInt8]) -> TIFFScrub {
        guard var tiff = TIFF(bytes), let ifd0 = tiff.ifd(at: tiff.firstIFDOffset) else { return .malformed }
        let pointers = ifd0.entries.filter { $0.tag == TIFF.Tag.gpsInfo }
        guard let pointer = pointers.first else { return .unchanged }
        guard pointers.count == 1, pointer.count == 1, pointer.type == 4 || pointer.type == 13,
              let target = tiff.u32(at: pointer.offset + 8)
        else { return .malformed }

        var gpsRanges: [Range<Int>] = []
        if target != 0 { // 0: a pointer to nothing; only the entry needs to go.
            guard let gps = tiff.ifd(pointedToBy: pointer) else { return .malformed }
            gpsRanges.append(gps.tableRange)
            for entry in gps.entries {
                switch tiff.valueLocation(of: entry) {
                case .inline: break
                case let .external(range): gpsRanges.append(range)
                case .outOfBounds: return .malformed
                }
            }
        }
        let gps = RangeList(gpsRanges)
        guard !gps.overlaps(RangeList(protectedRanges(in: tiff, ifd0: ifd0))) else { return .malformed }
        for range in gps.ranges {
            tiff.zero(range)
        }
        tiff.removeEntries(tagged: TIFF.Tag.gpsInfo, from: ifd0)
        return .scrubbed(tiff.bytes)
    }

    /// Bytes the GPS data must not overlap: the TIFF header, IFD0 and its
    /// values, the EXIF and interoperability sub-IFDs and their values, IFD1,
    /// its values and the thumbnail. Sub-structures that cannot be read are
    /// skipped (they cannot be damaged by zeroing what they do not describe).
    private static func protectedRanges(in tiff: TIFF, ifd0: TIFF.IFD) -> [Range<Int>] {
        var ranges: [Range<Int>] = [0..<8]
        func protect(_ ifd: TIFF.IFD) {
            ranges.append(ifd.tableRange)
            for entry in ifd.entries where entry.tag != TIFF.Tag.gpsInfo {
                if case let .external(range) = tiff.valueLocation(of: entry) {
                    ranges.append(range)
                }
            }
        }
        protect(ifd0)
        if let pointer = ifd0.entries.first(where: { $0.tag == TIFF.Tag.exifIFD }),
           let exif = tiff.ifd(pointedToBy: pointer) {
            protect(exif)
            if let pointer = exif.entries.first(where: { $0.tag == TIFF.Tag.interoperabilityIFD }),
               let interoperability = tiff.ifd(pointedToBy: pointer) {
                protect(interoperability)
            }
        }
        if let next = tiff.u32(at: ifd0.nextOffsetField).flatMap({ Int(exactly: $0) }), next != 0,
           let ifd1 = tiff.ifd(at: next) {
            protect(ifd1)
            if let offsetEntry = ifd1.entries.first(where: { $0.tag == TIFF.Tag.thumbnailOffset }),
               let lengthEntry = ifd1.entries.first(where: { $0.tag == TIFF.Tag.thumbnailLength }),
               let offset = tiff.u32(at: offsetEntry.offset + 8).flatMap({ Int(exactly: $0) }),
               let length = tiff.u32(at: lengthEntry.offset + 8).flatMap({ Int(exactly: $0) }),
               ImageInspector.ByteReader(tiff.bytes).contains(offset, length: length) {
                ranges.append(offset..<(offset + length))
            }
        }
        return ranges
    }

    /// A sorted list of disjoint, non-empty ranges (overlapping or adjacent
    /// inputs are merged), so overlap tests and zeroing stay linear however
    /// many entries a hostile directory declares.
    struct RangeList {
        /// The merged ranges, in ascending order.
        let ranges: [Range<Int>]

        /// Sorts and merges `ranges`, dropping empty ones.
        init(_ ranges: [Range<Int>]) {
            var merged: [Range<Int>] = []
            for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = merged.last, range.lowerBound <= last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            self.ranges = merged
        }

        /// Whether any byte is in both lists.
        func overlaps(_ other: RangeList) -> Bool {
            var index = 0, otherIndex = 0
            while index < ranges.count, otherIndex < other.ranges.count {
                let mine = ranges[index], theirs = other.ranges[otherIndex]
                if mine.overlaps(theirs) { return true }
                if mine.upperBound <= theirs.lowerBound {
                    index += 1
                } else {
                    otherIndex += 1
                }
            }
            return false
        }
    }
}
