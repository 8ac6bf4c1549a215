/// A standard base32 geohash cell ("0123456789bcdefghjkmnpqrstuvwxyz"), bits interleaved longitude first.
///
/// Each character carries 5 bits; a cell of precision `p` has `ceil(5p/2)` longitude bits and
/// `floor(5p/2)` latitude bits. Points on a cell's western or southern edge belong to that cell; the
/// easternmost column includes longitude 180 and the northernmost row includes latitude 90.
public struct Geohash: Sendable, Hashable, CustomStringConvertible {
    /// The geohash base32 alphabet, in ascending ASCII order (so string order equals numeric order).
    public static let alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
    /// The precision stored for every class in the indexed geohash TEXT column (cells of about 1.2 m × 0.6 m).
    public static let storagePrecision = 10
    /// The largest supported precision (60 bits).
    public static let maximumPrecision = 12

    /// The number of characters (1...``maximumPrecision``).
    public let precision: Int
    /// The `5 * precision` interleaved bits, most significant first, in the low bits of the integer.
    let bits: UInt64

    /// The cell of the given precision that contains `point`.
    ///
    /// `precision` is clamped to 1...``maximumPrecision``; the point is normalized first
    /// (latitude clamped, longitude wrapped into -180...180, non-finite values become 0).
    public init(_ point: GeoPoint, precision: Int) {
        let grid = Grid(precision: precision)
        let point = point.normalized
        self.init(
            precision: grid.precision,
            bits: grid.cellIndex(row: grid.row(forLatitude: point.lat), column: grid.column(forLongitude: point.lon))
        )
    }

    /// The cell named by `string`, or nil unless it has 1...``maximumPrecision`` characters, all from
    /// ``alphabet`` (upper-case letters are accepted and read as lower case).
    public init?(string: String) {
        let bytes = Array(string.utf8)
        guard (1...Geohash.maximumPrecision).contains(bytes.count) else { return nil }
        var bits: UInt64 = 0
        for byte in bytes {
            guard let value = Geohash.value(of: byte) else { return nil }
            bits = (bits << 5) | value
        }
        self.init(precision: bytes.count, bits: bits)
    }

    /// A cell from its precision (1...``maximumPrecision``) and interleaved bits.
    init(precision: Int, bits: UInt64) {
        self.precision = precision
        self.bits = bits
    }

    /// The key of the ``storagePrecision`` cell holding `point`: keys order as the cells' geohash text does, so that
    /// the listings of any coarser cell hold the keys of its ``storageKeys``.
    public static func storageKey(of point: GeoPoint) -> UInt64 {
        Geohash(point, precision: storagePrecision).bits
    }

    /// The ``storageKey(of:)``s of the points this cell holds; a cell finer than ``storagePrecision`` spans its
    /// enclosing cell's key alone.
    public var storageKeys: Range<UInt64> {
        guard precision < Geohash.storagePrecision else {
            let key = bits >> UInt64(5 * (precision - Geohash.storagePrecision))
            return key..<(key + 1)
        }
        let shift = UInt64(5 * (Geohash.storagePrecision - precision))
        return (bits << shift)..<((bits + 1) << shift)
    }

    /// The geohash text, `precision` lower-case characters.
    public var string: String {
        Geohash.render(bits, length: precision)
    }

    /// Same as ``string``.
    public var description: String {
        string
    }

    /// The exact latitude/longitude extent of the cell.
    public var bounds: GeoBoundingBox {
        let grid = Grid(precision: precision)
        let (row, column) = grid.rowAndColumn(ofCell: bits)
        return grid.bounds(row: row, column: column)
    }

    /// The middle of the cell.
    public var center: GeoPoint {
        let box = bounds
        return GeoPoint(lat: (box.minLat + box.maxLat) / 2, lon: (box.minLon + box.maxLon) / 2)
    }

    /// Whether `point` lies inside the cell's bounds (edges included).
    public func contains(_ point: GeoPoint) -> Bool {
        bounds.contains(point)
    }

    /// The enclosing cell one character shorter, or nil at precision 1.
    public var parent: Geohash? {
        precision > 1 ? Geohash(precision: precision - 1, bits: bits >> 5) : nil
    }

    /// The 32 cells one character longer, in base32 order (empty at ``maximumPrecision``), made as they are read: a
    /// nearest-first walk splits cells in its inner loop, where an array of them per split showed.
    public var children: LazyMapSequence<Range<UInt64>, Geohash> {
        let (precision, bits) = (self.precision, self.bits)
        return (0..<(precision < Geohash.maximumPrecision ? 32 : 0)).lazy.map { Geohash(precision: precision + 1, bits: (bits << 5) | $0) }
    }

    /// A compass direction to an adjacent cell.
    public enum Direction: Sendable, Hashable, CaseIterable {
        /// Towards the North Pole.
        case north
        /// North and east.
        case northEast
        /// Towards increasing longitude.
        case east
        /// South and east.
        case southEast
        /// Towards the South Pole.
        case south
        /// South and west.
        case southWest
        /// Towards decreasing longitude.
        case west
        /// North and west.
        case northWest

        /// Row change (+1 is north) and column change (+1 is east) for this direction.
        var offset: (rows: Int, columns: Int) {
            switch self {
            case .north: (1, 0)
            case .northEast: (1, 1)
            case .east: (0, 1)
            case .southEast: (-1, 1)
            case .south: (-1, 0)
            case .southWest: (-1, -1)
            case .west: (0, -1)
            case .northWest: (1, -1)
            }
        }
    }

    /// The adjacent cell of the same precision in `direction`.
    ///
    /// Columns wrap across the antimeridian (east of the last column is the first). Rows are clamped at the
    /// poles: north of a northernmost cell is the cell itself (and likewise south at the South Pole), so
    /// `.northEast` from the top row is the eastern neighbour.
    public func neighbour(_ direction: Direction) -> Geohash {
        let grid = Grid(precision: precision)
        let (row, column) = grid.rowAndColumn(ofCell: bits)
        let offset = direction.offset
        let newRow: UInt64
        switch offset.rows {
        case 1: newRow = row + 1 < grid.rowCount ? row + 1 : row
        case -1: newRow = row > 0 ? row - 1 : row
        default: newRow = row
        }
        let newColumn: UInt64
        switch offset.columns {
        case 1: newColumn = (column + 1) % grid.columnCount
        case -1: newColumn = (column + grid.columnCount - 1) % grid.columnCount
        default: newColumn = column
        }
        return Geohash(precision: precision, bits: grid.cellIndex(row: newRow, column: newColumn))
    }

    /// The distinct adjacent cells, in ``Direction`` order, excluding the cell itself: eight cells normally,
    /// five for a cell touching a pole, fewer at precision 1 where the world is only 8 columns wide.
    public var neighbours: [Geohash] {
        var result: [Geohash] = []
        for direction in Direction.allCases {
            let cell = neighbour(direction)
            if cell != self, !result.contains(cell) {
                result.append(cell)
            }
        }
        return result
    }

    // MARK: - Text

    /// The alphabet as ASCII bytes.
    static let alphabetBytes: [UInt8] = Array(alphabet.utf8)

    /// The 5-bit value of an alphabet byte (upper-case letters accepted), or nil.
    static func value(of byte: UInt8) -> UInt64? {
        var byte = byte
        if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") {
            byte += 32
        }
        guard let index = alphabetBytes.firstIndex(of: byte) else { return nil }
        return UInt64(index)
    }

    /// The low `5 * length` bits of `bits` as `length` base32 characters.
    static func render(_ bits: UInt64, length: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: length)
        for position in 0..<length {
            let shift = UInt64(5 * (length - 1 - position))
            bytes[position] = alphabetBytes[Int((bits >> shift) & 31)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Geohash {
    /// The row/column grid of all cells of one precision: rows count northwards from -90°,
    /// columns eastwards from -180°, each of equal size in degrees.
    struct Grid: Sendable, Hashable {
        /// The precision, clamped to 1...``Geohash/maximumPrecision``.
        let precision: Int

        /// The grid for `precision`, clamped to the supported range.
        init(precision: Int) {
            self.precision = min(Geohash.maximumPrecision, max(1, precision))
        }

        /// Total number of interleaved bits.
        var bitCount: Int { 5 * precision }
        /// Number of longitude bits (the first bit and every second one after it).
        var longitudeBits: Int { (bitCount + 1) / 2 }
        /// Number of latitude bits.
        var latitudeBits: Int { bitCount / 2 }
        /// Number of rows.
        var rowCount: UInt64 { 1 << UInt64(latitudeBits) }
        /// Number of columns.
        var columnCount: UInt64 { 1 << UInt64(longitudeBits) }
        /// Height of a cell in degrees (exact, a power-of-two fraction of 180).
        var cellHeight: Double { 180 / Double(rowCount) }
        /// Width of a cell in degrees (exact, a power-of-two fraction of 360).
        var cellWidth: Double { 360 / Double(columnCount) }

        /// The row holding `latitude` (clamped to the grid); matches the geohash bisection exactly.
        func row(forLatitude latitude: Double) -> UInt64 {
            Grid.bisect(latitude, lower: -90, upper: 90, bits: latitudeBits)
        }

        /// The column holding `longitude` (clamped to the grid, 180 is in the last column);
        /// matches the geohash bisection exactly.
        func column(forLongitude longitude: Double) -> UInt64 {
            Grid.bisect(longitude, lower: -180, upper: 180, bits: longitudeBits)
        }

        /// Repeated halving as in the geohash definition: a value on a midpoint goes to the upper half.
        /// The midpoints are dyadic fractions of the range and therefore exact in `Double`.
        static func bisect(_ value: Double, lower: Double, upper: Double, bits: Int) -> UInt64 {
            var low = lower
            var high = upper
            var index: UInt64 = 0
            for _ in 0..<bits {
                let middle = (low + high) / 2
                if value >= middle {
                    index = (index << 1) | 1
                    low = middle
                } else {
                    index <<= 1
                    high = middle
                }
            }
            return index
        }

        /// The interleaved cell bits for a row and column (longitude bit first).
        func cellIndex(row: UInt64, column: UInt64) -> UInt64 {
            var result: UInt64 = 0
            var longitudeShift = longitudeBits
            var latitudeShift = latitudeBits
            for position in 0..<bitCount {
                if position % 2 == 0 {
                    longitudeShift -= 1
                    result = (result << 1) | ((column >> UInt64(longitudeShift)) & 1)
                } else {
                    latitudeShift -= 1
                    result = (result << 1) | ((row >> UInt64(latitudeShift)) & 1)
                }
            }
            return result
        }

        /// The row and column of interleaved cell bits.
        func rowAndColumn(ofCell cell: UInt64) -> (row: UInt64, column: UInt64) {
            var row: UInt64 = 0
            var column: UInt64 = 0
            for position in 0..<bitCount {
                let bit = (cell >> UInt64(bitCount - 1 - position)) & 1
                if position % 2 == 0 {
                    column = (column << 1) | bit
                } else {
                    row = (row << 1) | bit
                }
            }
            return (row, column)
        }

        /// The exact bounds of the cell at `row` and `column`.
        func bounds(row: UInt64, column: UInt64) -> GeoBoundingBox {
            let height = cellHeight
            let width = cellWidth
            return GeoBoundingBox(
                minLat: Double(row) * height - 90,
                maxLat: Double(row + 1) * height - 90,
                minLon: Double(column) * width - 180,
                maxLon: Double(column + 1) * width - 180
            )
        }
    }
}
