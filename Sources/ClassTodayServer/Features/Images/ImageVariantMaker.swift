import ClassTodayCore
import Foundation
import Logging

/// Finds the stored variants of originals, making each one on its first request: at most `concurrency` renders at
/// once on ``WorkerPool/images``, and one render for any number of concurrent requests of the same variant (which is
/// named by the original's content hash, so identical uploads share it).
public actor ImageVariantMaker {
    private let images: any ImageRepository
    private let renderer: VipsImageRenderer?
    private let limit: ConcurrencyLimit
    private var renders: [String: Task<String, any Error>] = [:]

    /// Thrown by ``file(sha256:variant:encoding:logger:)`` when variants cannot be made because libvips is missing.
    public struct Unavailable: Error, Equatable {}

    /// Creates a maker storing variants in `images`, rendering with `renderer` (nil when libvips is missing: no
    /// variant can be made), at most `concurrency` at once.
    public init(images: any ImageRepository, renderer: VipsImageRenderer?, concurrency: Int) {
        self.images = images
        self.renderer = renderer
        self.limit = ConcurrencyLimit(width: concurrency)
    }

    /// A local file holding the stored `variant` in `encoding` of the original with hash `sha256`, made first (and stored
    /// back) when missing; the render logs to `logger` (libvips' own messages too, see ``VipsLogRouter``). Throws
    /// ``VipsImageRenderer/Failure`` when the original cannot be rendered (nothing is stored then), ``Unavailable``
    /// when a variant that is not stored yet cannot be made, and ``DomainError/notFound(_:)`` when the original is gone.
    public func file(sha256: String, variant: ImageVariant, encoding: VariantEncoding, logger: Logger) async throws -> String {
        if let path = try await images.variantFile(sha256: sha256, variant: variant, encoding: encoding) { return path }
        let name = "\(sha256).\(variant.rawValue).\(encoding.rawValue)"
        if let render = renders[name] { return try await render.value }
        guard let renderer else { throw Unavailable() }
        let render = Task { [images, limit] in
            guard let original = try await images.originalFile(sha256: sha256) else { throw DomainError.notFound("image") }
            let data = try await limit.run {
                try await WorkerPool.images.run {
                    let start = ContinuousClock.now
                    let data = try VipsLogRouter.shared.attributing(to: logger) {
                        try renderer.render(file: original, variant: variant, encoding: encoding)
                    }
                    logger.debug("image variant made", metadata: [
                        "sha256": "\(sha256)", "variant": "\(variant.rawValue)", "encoding": "\(encoding.rawValue)",
                        "bytes": "\(data.count)", "duration": "\(ContinuousClock.now - start)",
                    ])
                    return data
                }
            }
            return try await images.storeVariant(data, sha256: sha256, variant: variant, encoding: encoding)
        }
        renders[name] = render
        defer { renders[name] = nil }
        return try await render.value
    }
}
