import ClassTodayCore
import Foundation
import Logging

/// Finds the stored variants of originals, making each one on its first request: at most ``concurrency`` renders at
/// once on ``WorkerPool/images``, and one render for any number of concurrent requests of the same variant (which is
/// named by the original's content hash, so identical uploads share it).
public actor ImageVariantMaker {
    private let images: any ImageRepository
    private let renderer: VipsImageRenderer
    private let limit: ConcurrencyLimit
    private let logger: Logger
    private var renders: [String: Task<Void, any Error>] = [:]

    /// Creates a maker storing variants in `images`, rendering at most `concurrency` at once.
    public init(images: any ImageRepository, renderer: VipsImageRenderer, concurrency: Int, logger: Logger) {
        self.images = images
        self.renderer = renderer
        self.limit = ConcurrencyLimit(width: concurrency)
        self.logger = logger
    }

    /// The path of the stored `variant` in `encoding` of the original with hash `sha256`, made first when missing.
    /// Throws ``VipsImageRenderer/Failure`` when the original cannot be rendered.
    public func file(sha256: String, variant: ImageVariant, encoding: VariantEncoding) async throws -> String {
        let path = images.variantPath(sha256: sha256, variant: variant, encoding: encoding)
        if FileManager.default.fileExists(atPath: path) { return path }
        if let render = renders[path] {
            try await render.value
            return path
        }
        let render = Task { [images, renderer, limit, logger] in
            try await limit.run {
                try await WorkerPool.images.run {
                    let start = ContinuousClock.now
                    let data = try renderer.render(file: images.path(sha256: sha256), variant: variant, encoding: encoding)
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
