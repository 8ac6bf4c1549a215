import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore
import _NIOFileSystem

/// Reads an image upload from a request body, either `multipart/form-data` (the `file` part) or a raw body with
/// an image content type, spooling it to a temporary file as it arrives so that a large upload is never held in
/// memory twice, and refusing it with 413 as soon as it passes `limit` bytes.
struct ImageUpload {
    /// The largest accepted upload, in bytes.
    let limit: Int
    /// Where spool files go.
    let spoolFolder: String

    /// The uploaded bytes.
    func read(_ request: Request) async throws -> Data {
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let spool = FilePath((spoolFolder as NSString).appendingPathComponent("upload-\(UUID().uuidString).part"))
        defer { try? FileManager.default.removeItem(atPath: spool.string) }
        if mediaType == "multipart/form-data" {
            guard let boundary = Self.boundary(of: contentType) else {
                throw DomainError.badRequest("multipart/form-data needs a boundary")
            }
            try await spoolFilePart(of: request.body, boundary: boundary, to: spool)
        } else if mediaType.hasPrefix("image/") || mediaType == "application/octet-stream" {
            try await spoolRaw(request.body, to: spool)
        } else {
            throw UploadError.unsupportedMediaType
        }
        let buffer = try await FileSystem.shared.withFileHandle(forReadingAt: spool) { handle in
            try await handle.readToEnd(maximumSizeAllowed: .bytes(Int64(limit)))
        }
        return Data(buffer.readableBytesView)
    }

    private func spoolRaw(_ body: RequestBody, to path: FilePath) async throws {
        try await FileSystem.shared.withFileHandle(forWritingAt: path, options: .newFile(replaceExisting: true)) { handle in
            var writer = handle.bufferedWriter()
            var total = 0
            for try await chunk in body {
                total += chunk.readableBytes
                guard total <= limit else { throw UploadError.tooLarge }
                try await writer.write(contentsOf: chunk)
            }
            guard total > 0 else { throw DomainError.invalid("file", "is empty") }
            try await writer.flush()
        }
    }

    private func spoolFilePart(of body: RequestBody, boundary: String, to path: FilePath) async throws {
        let parts = PartCollector(boundary: boundary)
        try await FileSystem.shared.withFileHandle(forWritingAt: path, options: .newFile(replaceExisting: true)) { handle in
            var writer = handle.bufferedWriter()
            var total = 0
            for try await chunk in body {
                for piece in try parts.feed(chunk) {
                    total += piece.readableBytes
                    guard total <= limit else { throw UploadError.tooLarge }
                    try await writer.write(contentsOf: piece)
                }
            }
            guard parts.sawFilePart else { throw DomainError.invalid("file", "is required: send the image as the 'file' part") }
            guard total > 0 else { throw DomainError.invalid("file", "is empty") }
            try await writer.flush()
        }
    }

    /// The `boundary` parameter of a multipart content type.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.count > 70 ? nil : value
            }
        }
        return nil
    }

    /// Why an upload was refused before it was looked at.
    enum UploadError: Error {
        case tooLarge
        case unsupportedMediaType
    }

    /// Feeds body chunks through a multipart parser and hands back the bytes of the `file` part.
    private final class PartCollector {
        private let parser: MultipartParser
        private var currentName: String?
        private var inFilePart = false
        private var pending: [ByteBuffer] = []
        private(set) var sawFilePart = false

        init(boundary: String) {
            parser = MultipartParser(boundary: boundary)
            parser.onHeader = { [unowned self] field, value in
                guard field.lowercased() == "content-disposition" else { return }
                currentName = Self.parameter("name", in: value)
                inFilePart = currentName == "file" && !sawFilePart
                if inFilePart { sawFilePart = true }
            }
            parser.onBody = { [unowned self] buffer in
                if inFilePart { pending.append(buffer) }
            }
            parser.onPartComplete = { [unowned self] in
                inFilePart = false
                currentName = nil
            }
        }

        /// Parses `chunk`; returns the file-part bytes it contained.
        func feed(_ chunk: ByteBuffer) throws -> [ByteBuffer] {
            do {
                try parser.execute(chunk)
            } catch {
                throw DomainError.badRequest("the multipart body is malformed")
            }
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }

        private static func parameter(_ name: String, in header: String) -> String? {
            for piece in header.split(separator: ";").dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == name {
                    return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
            return nil
        }
    }
}
