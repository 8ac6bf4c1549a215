extension ImageInspector {
    /// JPEG marker-segment walking, shared by the inspector and ``JPEGLocationScrubber``.
    enum JPEG {
        /// One piece of a JPEG stream, in file order. Concatenating the ranges of
        /// every part yields the walked prefix of the file.
        enum Part: Equatable {
            /// Bytes kept as they are: SOI, standalone markers (RSTn, TEM), the
            /// entropy-coded data after an SOS header, and the final EOI.
            case raw(Range<Int>)
            /// A length-prefixed marker segment. `whole` covers the fill bytes,
            /// the marker and the length field; `payload` is what follows the length.
            case segment(marker: UInt8, whole: Range<Int>, payload: Range<Int>)
        }

        /// Marker code of the SOS (start of scan) segment.
        static let startOfScan: UInt8 = 0xDA
        /// Marker code of APP1 (EXIF, XMP).
        static let app1: UInt8 = 0xE1
        /// Marker code of APP2 (ICC profile, MPF).
        static let app2: UInt8 = 0xE2

        /// Whether `code` is a start-of-frame marker carrying the image size
        /// (SOF0–SOF15 except DHT `C4`, JPG `C8` and DAC `CC`).
        static func isStartOfFrame(_ code: UInt8) -> Bool {
            switch code {
            case 0xC4, 0xC8, 0xCC: false
            case 0xC0...0xCF: true
            default: false
            }
        }

        /// Walks the stream from SOI, calling `visit` for each part until it returns
        /// `false`, the EOI marker has been visited, or the structure breaks
        /// (missing marker, truncated segment, stray SOI or `FF 00`).
        ///
        /// Returns without visiting anything when the bytes do not start with SOI.
        /// Every iteration consumes at least one byte, so the walk always ends.
        static func walk(_ reader: ByteReader, _ visit: (Part) -> Bool) {
            guard reader.u8(at: 0) == 0xFF, reader.u8(at: 1) == 0xD8 else { return }
            guard visit(.raw(0..<2)) else { return }
            var offset = 2
            while let marker = marker(in: reader, at: offset) {
                switch marker.code {
                case 0xD9:
                    _ = visit(.raw(marker.start..<marker.end))
                    return
                case 0x01, 0xD0...0xD7:
                    guard visit(.raw(marker.start..<marker.end)) else { return }
                    offset = marker.end
                case 0x00, 0xD8:
                    return
                default:
                    guard let length = reader.u16be(at: marker.end), length >= 2,
                          reader.contains(marker.end, length: Int(length))
                    else { return }
                    let end = marker.end + Int(length)
                    let part = Part.segment(marker: marker.code, whole: marker.start..<end, payload: (marker.end + 2)..<end)
                    guard visit(part) else { return }
                    offset = end
                    if marker.code == startOfScan {
                        let dataEnd = entropyDataEnd(reader, from: end)
                        if dataEnd > end {
                            guard visit(.raw(end..<dataEnd)) else { return }
                        }
                        offset = dataEnd
                    }
                }
            }
        }

        /// Reads the JPEG frame header (SOFn) that follows any APPn / DQT / DHT / COM segments.
        static func inspect(_ reader: ByteReader) -> ImageInfo? {
            var info: ImageInfo?
            walk(reader) { part in
                guard case let .segment(marker, _, payload) = part else {
                    // RSTn/TEM before the frame are tolerated; EOI ends the walk anyway.
                    return true
                }
                if isStartOfFrame(marker) {
                    info = frameInfo(reader, payload: payload)
                    return false
                }
                return marker != startOfScan // a scan before any frame header is invalid
            }
            return info
        }

        /// Parses a SOFn payload: precision, height, width, component count and
        /// three bytes per component.
        private static func frameInfo(_ reader: ByteReader, payload: Range<Int>) -> ImageInfo? {
            let start = payload.lowerBound
            guard let height = reader.u16be(at: start + 1),
                  let width = reader.u16be(at: start + 3),
                  let components = reader.u8(at: start + 5),
                  width > 0, height > 0, components > 0,
                  payload.count >= 6 + 3 * Int(components)
            else { return nil }
            return ImageInfo(format: .jpeg, width: Int(width), height: Int(height))
        }

        /// A marker located in the stream.
        private struct Marker {
            /// Index of the first `0xFF` (fill bytes included).
            let start: Int
            /// The marker code (the byte after the `0xFF` run).
            let code: UInt8
            /// Index just after the marker code.
            let end: Int
        }

        /// The marker starting at `offset`, skipping `0xFF` fill bytes; `nil`
        /// when `offset` does not hold `0xFF` or the stream ends in the fill.
        private static func marker(in reader: ByteReader, at offset: Int) -> Marker? {
            guard reader.u8(at: offset) == 0xFF else { return nil }
            var index = offset + 1
            while reader.u8(at: index) == 0xFF {
                index += 1
            }
            guard let code = reader.u8(at: index) else { return nil }
            return Marker(start: offset, code: code, end: index + 1)
        }

        /// The index where the entropy-coded data starting at `start` ends: the
        /// first `0xFF` (fill bytes included) that begins a real marker. `FF 00`
        /// (stuffed byte) and `FF D0`–`FF D7` (restart markers) are part of the data.
        private static func entropyDataEnd(_ reader: ByteReader, from start: Int) -> Int {
            let bytes = reader.bytes
            var index = start
            while index < bytes.count {
                guard bytes[index] == 0xFF else {
                    index += 1
                    continue
                }
                var next = index + 1
                while next < bytes.count, bytes[next] == 0xFF {
                    next += 1
                }
                guard next < bytes.count else { return index }
                switch bytes[next] {
                case 0x00, 0xD0...0xD7:
                    index = next + 1
                default:
                    return index
                }
            }
            return bytes.count
        }
    }
}
