import Foundation
import NIOCore

/// A strict, streaming reader of a `multipart/form-data` body (RFC 7578 over the grammar of RFC 2046 §5.1.1) that
/// hands back the content of one named part as the chunks arrive and skips every other part.
///
/// Feed it the body chunk by chunk, then call ``finish()``. It holds at most one part's header block, a short
/// preamble and a boundary's length of bytes, so content of any size streams through; bounding the total is the
/// caller's job. Anything that is not a well-formed body (a boundary not followed by CRLF or `--`, a header name
/// that is not a token, a control byte in a header value, a header block or preamble over its limit, too many
/// parts, a part without `Content-Disposition: form-data; name=...`, the named part twice, or a body that ends
/// before its closing boundary) throws ``Malformed``.
struct MultipartReader {
    /// Bounds on the structure of an accepted body.
    struct Limits: Sendable {
        /// The largest header block of one part, in bytes.
        var headerBlockBytes = 8 * 1024
        /// The most parts a body may have.
        var parts = 16
        /// The longest preamble before the first boundary, in bytes.
        var preambleBytes = 1024
        /// The longest run of spaces and tabs after a boundary (RFC 2046's transport padding).
        var paddingBytes = 64

        /// The default limits.
        init() {}
    }

    /// Why a body is not a well-formed multipart body. The reason never quotes the body, so it is safe to show.
    struct Malformed: Error, Equatable {
        /// What is wrong, in words a client developer can act on.
        let reason: String
    }

    private enum State {
        /// Before the first delimiter.
        case preamble
        /// Just after a delimiter: `--` closes the body, transport padding and CRLF open a part.
        case afterDelimiter
        /// Inside a part's header block.
        case headers
        /// Inside a part's content, handed back when the part is the wanted one.
        case content(wanted: Bool)
        /// After the closing delimiter; ignored.
        case epilogue
    }

    private static let crlf: [UInt8] = [13, 10]

    /// CRLF, `--` and the boundary.
    private let delimiter: [UInt8]
    private let partName: String
    private let limits: Limits
    private var state = State.preamble
    /// Bytes received and not yet consumed. It starts with a CRLF so that a body opening with its boundary (the usual
    /// case, with no preamble) matches the delimiter like every later boundary does.
    private var pending: [UInt8] = crlf
    private var preambleLength = -crlf.count
    private var partCount = 0

    /// Whether the body had the wanted part.
    private(set) var foundPart = false

    /// A reader of a body delimited by `boundary` that hands back the content of the part named `partName`.
    init(boundary: String, partName: String, limits: Limits = Limits()) {
        delimiter = Self.crlf + Array("--\(boundary)".utf8)
        self.partName = partName
        self.limits = limits
    }

    /// Reads `chunk` and returns the wanted part's content it completed, in order (possibly none).
    mutating func feed(_ chunk: ByteBuffer) throws(Malformed) -> [ByteBuffer] {
        pending.append(contentsOf: chunk.readableBytesView)
        var content: [ByteBuffer] = []
        var start = 0
        scanning: while start < pending.count {
            switch state {
            case .preamble:
                let (end, found) = scanForDelimiter(from: start)
                preambleLength += end - start
                guard preambleLength <= limits.preambleBytes else {
                    throw Malformed(reason: "the body must start with its boundary")
                }
                start = found ? end + delimiter.count : end
                guard found else { break scanning }
                state = .afterDelimiter
            case .afterDelimiter:
                guard let next = try partOpening(from: start) else { break scanning }
                start = next
            case .headers:
                guard let next = try headerBlock(from: start) else { break scanning }
                start = next
            case .content(let wanted):
                let (end, found) = scanForDelimiter(from: start)
                if wanted, end > start { content.append(ByteBuffer(bytes: pending[start..<end])) }
                start = found ? end + delimiter.count : end
                guard found else { break scanning }
                state = .afterDelimiter
            case .epilogue:
                start = pending.count
            }
        }
        pending.removeFirst(start)
        return content
    }

    /// Checks that the body ended after its closing boundary.
    func finish() throws(Malformed) {
        guard case .epilogue = state else { throw Malformed(reason: "the body ends before its closing boundary") }
    }

    /// Where the next delimiter starts, or, when there is none, the end of the bytes that cannot be its beginning.
    private func scanForDelimiter(from start: Int) -> (end: Int, found: Bool) {
        if let index = Self.firstIndex(of: delimiter, in: pending[...], from: start) { return (index, true) }
        return (max(start, pending.count - (delimiter.count - 1)), false)
    }

    /// After a delimiter: consumes `--` (the end) or transport padding and CRLF (a new part). Returns where reading
    /// goes on, or nil when more bytes are needed.
    private mutating func partOpening(from start: Int) throws(Malformed) -> Int? {
        guard pending.count - start >= 2 else { return nil }
        if pending[start] == UInt8(ascii: "-"), pending[start + 1] == UInt8(ascii: "-") {
            state = .epilogue
            return start + 2
        }
        var index = start
        while index < pending.count, pending[index] == UInt8(ascii: " ") || pending[index] == UInt8(ascii: "\t") { index += 1 }
        guard index - start <= limits.paddingBytes else { throw Malformed(reason: "a boundary must be followed by CRLF or --") }
        guard pending.count - index >= 2 else { return nil }
        guard pending[index] == 13, pending[index + 1] == 10 else { throw Malformed(reason: "a boundary must be followed by CRLF or --") }
        partCount += 1
        guard partCount <= limits.parts else { throw Malformed(reason: "the body has more than \(limits.parts) parts") }
        state = .headers
        return index + 2
    }

    /// Reads a part's header block up to its blank line. Returns where the content starts, or nil when more bytes
    /// are needed.
    private mutating func headerBlock(from start: Int) throws(Malformed) -> Int? {
        guard pending.count - start >= 2 else { return nil }
        if pending[start] == 13, pending[start + 1] == 10 {
            throw Malformed(reason: "every part needs a Content-Disposition header")
        }
        guard let end = Self.firstIndex(of: Self.crlf + Self.crlf, in: pending[...], from: start) else {
            guard pending.count - start <= limits.headerBlockBytes else { throw Malformed(reason: "a part's headers are too large") }
            return nil
        }
        guard end + 2 - start <= limits.headerBlockBytes else { throw Malformed(reason: "a part's headers are too large") }
        let name = try Self.formDataName(headerLines: pending[start..<end])
        let wanted = name == partName
        if wanted {
            guard !foundPart else { throw Malformed(reason: "send exactly one '\(partName)' part") }
            foundPart = true
        }
        state = .content(wanted: wanted)
        return end + 4
    }

    /// The `name` of a part from its header lines (CRLF-separated, without the blank line).
    private static func formDataName(headerLines: ArraySlice<UInt8>) throws(Malformed) -> String {
        var disposition: ParameterizedHeaderValue?
        var lineStart = headerLines.startIndex
        while lineStart <= headerLines.endIndex {
            let lineEnd = firstIndex(of: crlf, in: headerLines, from: lineStart) ?? headerLines.endIndex
            let line = headerLines[lineStart..<lineEnd]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[..<colon].allSatisfy(\.isHTTPTokenByte)
            else { throw Malformed(reason: "a part header is not of the form 'Name: value' with a token for a name") }
            let value = line[(colon + 1)...]
            guard value.allSatisfy(\.isHTTPFieldValueByte) else { throw Malformed(reason: "a part header value holds a control character") }
            if String(decoding: line[..<colon], as: UTF8.self).lowercased() == "content-disposition" {
                guard disposition == nil else { throw Malformed(reason: "a part has two Content-Disposition headers") }
                // Browsers and urllib3 write a name's backslash as is; a backslash escape is read where that fails.
                guard let parsed = ParameterizedHeaderValue(bytes: Array(value), quotedPairs: false) ?? ParameterizedHeaderValue(bytes: Array(value)) else {
                    throw Malformed(reason: "a part's Content-Disposition is malformed")
                }
                disposition = parsed
            }
            lineStart = lineEnd + 2
        }
        guard let disposition, disposition.value == "form-data", let name = disposition.parameters["name"] else {
            throw Malformed(reason: "every part needs a Content-Disposition header of the form 'form-data; name=\"...\"'")
        }
        return name
    }

    /// The first index at or after `start` where `pattern` occurs in `bytes`.
    private static func firstIndex(of pattern: [UInt8], in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { haystack in
            pattern.withUnsafeBufferPointer { needle in
                search(needle, in: haystack, from: start - bytes.startIndex).map { $0 + bytes.startIndex }
            }
        }
    }

    private static func search(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = needle.first, let haystackBase = haystack.baseAddress, let needleBase = needle.baseAddress else { return nil }
        var position = start
        while haystack.count - position >= needle.count {
            guard let hit = memchr(haystackBase + position, Int32(first), haystack.count - position - needle.count + 1) else { return nil }
            let index = haystackBase.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(hit, needleBase, needle.count) == 0 { return index }
            position = index + 1
        }
        return nil
    }
}
