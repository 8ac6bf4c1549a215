import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
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
                throw DomainError.badRequest("multipart/form-data needs a valid boundary parameter")
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
        var reader = MultipartReader(boundary: boundary, partName: "file")
        try await FileSystem.shared.withFileHandle(forWritingAt: path, options: .newFile(replaceExisting: true)) { handle in
            var writer = handle.bufferedWriter()
            var bodyBytes = 0
            var fileBytes = 0
            do {
                for try await chunk in body {
                    bodyBytes += chunk.readableBytes
                    guard bodyBytes <= limit + Self.multipartOverheadBytes else { throw UploadError.tooLarge }
                    for piece in try reader.feed(chunk) {
                        fileBytes += piece.readableBytes
                        guard fileBytes <= limit else { throw UploadError.tooLarge }
                        try await writer.write(contentsOf: piece)
                    }
                }
                try reader.finish()
            } catch let malformed as MultipartReader.Malformed {
                throw UploadError.malformedMultipart(malformed.reason)
            }
            guard reader.foundPart else { throw DomainError.invalid("file", "is required: send the image as the 'file' part") }
            guard fileBytes > 0 else { throw DomainError.invalid("file", "is empty") }
            try await writer.flush()
        }
    }

    /// How many bytes a multipart body may carry besides the file: boundaries, part headers, small form fields.
    static let multipartOverheadBytes = 64 * 1024

    /// The `boundary` parameter of a multipart content type, when it is a valid one (RFC 2046 §5.1.1: 1 to 70
    /// characters from a safe set, not ending in a space).
    static func boundary(of contentType: String) -> String? {
        guard let boundary = ParameterizedHeaderValue(contentType)?.parameters["boundary"],
              (1...70).contains(boundary.utf8.count), boundary.last != " ",
              boundary.utf8.allSatisfy(boundaryBytes.contains)
        else { return nil }
        return boundary
    }

    /// The characters a boundary may hold (RFC 2046's `bchars`).
    private static let boundaryBytes = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)

    /// Why an upload was refused before its bytes were looked at.
    enum UploadError: Error, Equatable {
        /// The upload (or the multipart body around it) is larger than allowed. 413.
        case tooLarge
        /// The body is neither multipart/form-data nor an image content type. 415.
        case unsupportedMediaType
        /// The multipart body is not well formed; the reason is safe to show. 400 naming the `file` field.
        case malformedMultipart(String)

        /// The problem this error is answered with, for uploads of at most `limit` bytes.
        func problem(limit: Int) -> Problem {
            switch self {
            case .tooLarge:
                Problem(status: .contentTooLarge, detail: "images may be at most \(limit) bytes")
            case .unsupportedMediaType:
                Problem(status: .unsupportedMediaType,
                        detail: "send multipart/form-data with a 'file' part, or the image bytes with an image/* content type")
            case .malformedMultipart(let reason):
                Problem(status: .badRequest, detail: "the multipart/form-data body is malformed",
                        errors: [FieldError(field: "file", message: reason)])
            }
        }
    }
}
