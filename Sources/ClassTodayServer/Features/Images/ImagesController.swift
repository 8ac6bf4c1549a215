import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOPosix

/// Image upload, download (the original or a resized variant) and deletion.
struct ImagesController {
    let records: any ImageRecordRepository
    let images: any ImageRepository
    let variants: ImageVariantMaker
    let upload: ImageUpload
    /// The largest width x height accepted at upload (the renderer's limit).
    let maxPixels: Int
    let fileIO = FileIO()

    /// Adds the image routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("images", use: create)
        group.get("images/{id}", use: show)
        group.get("images/{id}/{variant}", use: showVariant)
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
        let scrubbed: (info: ImageInfo, bytes: Data)? = try await NIOThreadPool.singleton.runIfActive {
            guard let info = ImageInspector.inspect(bytes) else { return nil }
            let stored = ImageLocationScrubber.removingLocation(from: bytes, format: info.format)
            return ImageInspector.inspect(stored).map { ($0, stored) }
        }
        guard let scrubbed else {
            return Problem(status: .unsupportedMediaType, detail: "the file is not a JPEG, PNG, WebP or HEIC/HEIF image").response()
        }
        guard scrubbed.info.width * scrubbed.info.height <= maxPixels else {
            return Self.tooManyPixels(width: scrubbed.info.width, height: scrubbed.info.height, limit: maxPixels).response()
        }
        let prepared = (info: scrubbed.info, blob: try await images.prepare(scrubbed.bytes))
        let record = ImageRecord(
            id: Identifier.make(), sha256: prepared.blob.sha256, format: prepared.info.format, bytes: prepared.blob.bytes,
            width: prepared.info.width, height: prepared.info.height, uploaderId: caller.userId, createdAt: Date())
        do {
            try await records.create(record, blob: prepared.blob)
        } catch {
            await images.discard(prepared.blob)
            throw error
        }
        context.logger.info("image uploaded", metadata: ["image_id": "\(record.id)", "bytes": "\(record.bytes)"])
        return try EditedResponse(status: .created, headers: [.location: ImageURL.path(for: record.id)],
                                  response: ImageResponse(record: record)).response(from: request, context: context)
    }

    /// `GET /v1/images/{id}`: the original, or with `?variant=` that variant. A HEIC/HEIF original goes only to its
    /// uploader; everyone else gets the `full` variant, which every client decodes.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let record = try await record(context)
        if let name = request.uri.queryParameters["variant"] {
            guard let variant = ImageVariant(rawValue: String(name)) else {
                throw DomainError.invalid("variant", "must be one of \(ImageVariant.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return try await serve(variant, of: record, request, context: context, varyByCaller: false)
        }
        if record.format.isWidelyDecodable {
            return try await serveOriginal(record, request, context: context, cacheControl: Self.publicCaching)
        }
        if context.caller?.userId == record.uploaderId {
            return try await serveOriginal(record, request, context: context, cacheControl: Self.privateCaching, vary: "Authorization")
        }
        return try await serve(.full, of: record, request, context: context, varyByCaller: true)
    }

    /// `GET /v1/images/{id}/{variant}`: a variant, in WebP when the request accepts it and in JPEG otherwise.
    @Sendable func showVariant(_ request: Request, context: AppRequestContext) async throws -> Response {
        let record = try await record(context)
        guard let variant = ImageVariant(rawValue: try context.parameters.require("variant")) else {
            throw DomainError.notFound("image variant")
        }
        return try await serve(variant, of: record, request, context: context, varyByCaller: false)
    }

    /// The record named by the `id` path parameter, or a 404.
    private func record(_ context: AppRequestContext) async throws -> ImageRecord {
        let id = try context.parameters.require("id")
        guard Identifier.isWellFormed(id), let record = try await records.record(id: id) else {
            throw DomainError.notFound("image")
        }
        return record
    }

    /// Serves the original of `record` with `cacheControl` and, when the answer depends on a request header, `vary`.
    private func serveOriginal(
        _ record: ImageRecord, _ request: Request, context: AppRequestContext, cacheControl: String, vary: String? = nil
    ) async throws -> Response {
        var headers: HTTPFields = [.contentType: record.format.contentType, .cacheControl: cacheControl]
        headers[.vary] = vary
        let etag = "\"\(record.sha256)\""
        if let notModified = Self.notModified(request, etag: etag, headers: headers) { return notModified }
        guard let path = try await images.originalFile(sha256: record.sha256) else { throw DomainError.notFound("image") }
        return try await serveFile(at: path, etag: etag, headers: headers, request, context: context)
    }

    /// Serves `variant` of `record` in the encoding the request accepts, making it first when it is missing.
    /// `varyByCaller` marks answers that another caller (the uploader of a HEIC) would get differently.
    private func serve(
        _ variant: ImageVariant, of record: ImageRecord, _ request: Request, context: AppRequestContext, varyByCaller: Bool
    ) async throws -> Response {
        let encoding = VariantEncoding.negotiated(accept: request.headers[.accept])
        let headers: HTTPFields = [
            .contentType: encoding.contentType, .cacheControl: Self.publicCaching,
            .vary: varyByCaller ? "Accept, Authorization" : "Accept",
        ]
        let etag = "\"\(record.sha256).\(variant.rawValue).\(encoding.rawValue)\""
        // The ETag names the variant before it exists: a client holding it needs no render.
        if let notModified = Self.notModified(request, etag: etag, headers: headers) { return notModified }
        if !varyByCaller, let temporary = try await images.temporaryURL(sha256: record.sha256, variant: variant, encoding: encoding) {
            return Self.redirect(to: temporary)
        }
        let path: String
        do {
            path = try await variants.file(sha256: record.sha256, variant: variant, encoding: encoding, logger: context.logger)
        } catch is ImageVariantMaker.Unavailable {
            return try await serveWithoutVariants(record, request, context: context)
        } catch let failure as VipsImageRenderer.Failure {
            switch failure {
            case .tooManyPixels(let width, let height, let limit):
                return Self.tooManyPixels(width: width, height: height, limit: limit).response()
            case .undecodable(let reason):
                context.logger.warning("image variant failed", metadata: ["image_id": "\(record.id)", "reason": "\(reason)"])
                return Problem(status: .unprocessableContent, detail: "this image cannot be decoded, so it has no variants").response()
            }
        }
        return try await serveFile(at: path, etag: etag, headers: headers, request, context: context)
    }

    /// The answer for a variant that cannot be made because libvips is missing: the original when every client shows
    /// its format, marked to be checked again (the variant takes its place once libvips is there), else a 503 naming
    /// what is missing.
    private func serveWithoutVariants(_ record: ImageRecord, _ request: Request, context: AppRequestContext) async throws -> Response {
        guard record.format.isWidelyDecodable else {
            return Problem(status: .serviceUnavailable, detail: Self.variantsUnavailable).response()
        }
        return try await serveOriginal(record, request, context: context, cacheControl: "no-cache", vary: "Accept")
    }

    /// What a client is told when a variant cannot be made for want of libvips.
    static let variantsUnavailable = "image variants are unavailable on this server: libvips (the Debian package "
        + "\(VipsLibrary.debianPackage)) is not installed, and this image's format is not one that every client shows"

    /// Answers with the file at `path` and `headers` plus its `ETag`, or a 304 when `If-None-Match` names it.
    private func serveFile(
        at path: String, etag: String, headers: HTTPFields, _ request: Request, context: AppRequestContext
    ) async throws -> Response {
        if let notModified = Self.notModified(request, etag: etag, headers: headers) { return notModified }
        var headers = headers
        headers[.eTag] = etag
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// A temporary redirect to a presigned URL of a public variant, cached by the client for half its life; it depends
    /// on `Accept`, which picked the encoding.
    private static func redirect(to temporary: TemporaryURL) -> Response {
        Response(status: .temporaryRedirect, headers: [
            .location: temporary.url, .cacheControl: "private, max-age=\(temporary.validSeconds / 2)", .vary: "Accept",
        ])
    }

    /// The 304 for a request whose `If-None-Match` names `etag`, nil for other requests.
    private static func notModified(_ request: Request, etag: String, headers: HTTPFields) -> Response? {
        guard let match = request.headers[.ifNoneMatch], matches(match, etag) else { return nil }
        var headers = headers
        headers[.eTag] = etag
        return Response(status: .notModified, headers: headers)
    }

    /// Caching for bytes anyone may get: they never change under their URL.
    private static let publicCaching = "public, max-age=31536000, immutable"
    /// Caching for a HEIC/HEIF original, which only its uploader gets.
    private static let privateCaching = "private, max-age=31536000, immutable"

    /// The 413 for an image of more pixels than allowed (a decompression bomb costs nothing: only its header is read).
    private static func tooManyPixels(width: Int, height: Int, limit: Int) -> Problem {
        Problem(status: .contentTooLarge, detail: "images may have at most \(limit) pixels; this one is \(width) x \(height)",
                errors: [FieldError(field: "file", message: "has more than \(limit) pixels")])
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

/// `{id, url, variants, contentType, bytes, width, height}`.
struct ImageResponse: ResponseEncodable {
    let id: String
    let url: String
    let variants: ImageVariantLinks
    let contentType: String
    let bytes: Int
    let width: Int
    let height: Int

    init(record: ImageRecord) {
        id = record.id
        url = ImageURL.path(for: record.id)
        variants = ImageVariantLinks(imageId: record.id)
        contentType = record.format.contentType
        bytes = record.bytes
        width = record.width
        height = record.height
    }
}
