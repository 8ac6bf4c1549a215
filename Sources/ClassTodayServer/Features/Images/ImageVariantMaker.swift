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
    private var renders: [String: Task<Void, any Error>] = [:]

    /// Thrown by ``file(sha256:variant:encoding:logger:)`` when variants cannot be made because libvips is missing.
    public struct Unavailable: Error, Equatable {}

    /// Creates a maker storing variants in `images`, rendering with `renderer` (nil when libvips is missing: no
    /// variant can be made), at most `concurrency` at once.
    public init(images: any ImageRepository, renderer: VipsImageRenderer?, concurrency: Int) {
        self.images = images
        self.renderer = renderer
        self.limit = ConcurrencyLimit(width: concurrency)
    }

    /// The path of the stored `variant` in `encoding` of the original with hash `sha256`, made first when missing;
    /// the render logs to `logger` (libvips' own messages too, see ``VipsLogRouter``). Throws
    /// ``VipsImageRenderer/Failure`` when the original cannot be rendered (nothing is stored then), and ``Unavailable``
    /// when a variant that is not stored yet cannot be made.
    public func file(sha256: String, variant: ImageVariant, encoding: VariantEncoding, logger: Logger) async throws -> String {
        let path = images.variantPath(sha256: sha256, variant: variant, encoding: encoding)
        if FileManager.default.fileExists(atPath: path) { return path }
        if let render = renders[path] {
            try await render.value
            return path
        }
        guard let renderer else { throw Unavailable() }
        let render = Task { [images, limit] in
            try await limit.run {
                try await WorkerPool.images.run {
                    let start = ContinuousClock.now
                    let data = try VipsLogRouter.shared.attributing(to: logger) {
                        try renderer.render(file: images.path(sha256: sha256), variant: variant, encoding: encoding)
                    }
                    try images.storeVariant(data, sha256: sha256, variant: variant, encoding: encoding)
                    logger.debug("image variant made", metadata: [
                        "sha256": "\(sha256)", "variant": "\(variant.rawValue)", "encoding": "\(encoding.rawValue)",
                        "bytes": "\(data.count)", "duration": "\(ContinuousClock.now - start)",
                    ])
                }
            }
        }
        renders[path] = render
        defer { renders[path] = nil }
        try await render.value
        return path
    }
}
