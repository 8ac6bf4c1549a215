import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOPosix

/// Image upload, download and deletion.
struct ImagesController {
    let records: any ImageRecordRepository
    let images: any ImageRepository
    let upload: ImageUpload
    let fileIO = FileIO()

    /// Adds the image routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("images", use: create)
        group.get("images/{id}", use: show)
        group.delete("images/{id}", use: delete)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let bytes: Data
        do {
            bytes = try await upload.read(request)
        } catch let error as ImageUpload.UploadError {
            return error.problem(limit: upload.limit).response()
        }
        let images = self.images
        let prepared: (info: ImageInfo, blob: PreparedBlob)? = try await NIOThreadPool.singleton.runIfActive {
            guard let info = ImageInspector.inspect(bytes) else { return nil }
            let stored = info.format == .jpeg ? JPEGLocationScrubber.removingLocation(from: bytes) : bytes
            guard let storedInfo = ImageInspector.inspect(stored) else { return nil }
            return (storedInfo, try images.prepare(stored))
        }
        guard let prepared else {
            return Problem(status: .unsupportedMediaType, detail: "the file is not a JPEG, PNG, WebP or HEIC/HEIF image").response()
        }
        let record = ImageRecord(
            id: Identifier.make(), sha256: prepared.blob.sha256, format: prepared.info.format, bytes: prepared.blob.bytes,
            width: prepared.info.width, height: prepared.info.height, uploaderId: caller.userId, createdAt: Date())
        do {
            try await records.create(record, blob: prepared.blob)
        } catch {
            images.discard(prepared.blob)
            throw error
        }
        context.logger.info("image uploaded", metadata: ["image_id": "\(record.id)", "bytes": "\(record.bytes)"])
        return try EditedResponse(status: .created, headers: [.location: ImageURL.path(for: record.id)],
                                  response: ImageResponse(record: record)).response(from: request, context: context)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard Identifier.isWellFormed(id), let record = try await records.record(id: id) else {
            throw DomainError.notFound("image")
        }
        let etag = "\"\(record.sha256)\""
        var headers: HTTPFields = [
            .contentType: record.format.contentType,
            .eTag: etag,
            .cacheControl: "public, max-age=31536000, immutable",
        ]
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = "\(record.bytes)"
        let body = try await fileIO.loadFile(path: images.path(sha256: record.sha256), context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        guard Identifier.isWellFormed(id) else { throw DomainError.notFound("image") }
        try await records.delete(id: id, by: caller.userId)
        return Response(status: .noContent)
    }

    /// Whether an `If-None-Match` header value names `etag` (or is `*`).
    private static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/\(etag)"
        }
    }
}

/// `{id, url, contentType, bytes, width, height}`.
struct ImageResponse: ResponseEncodable {
    let id: String
    let url: String
    let contentType: String
    let bytes: Int
    let width: Int
    let height: Int

    init(record: ImageRecord) {
        id = record.id
        url = ImageURL.path(for: record.id)
        contentType = record.format.contentType
        bytes = record.bytes
        width = record.width
        height = record.height
    }
}
