import Logging
import Prometheus

/// Whether this server makes image variants: libvips is loaded from ``AppConfiguration/vipsLibraryPath`` at start. The
/// outcome is logged once (when libvips is missing: what and which package brings it) and kept in the Prometheus gauge
/// `classtoday_image_variants_available` (1 or 0); `/health` reports it too.
enum ImageVariantAvailability {
    /// The gauge's name: `classtoday_image_variants_available`.
    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "classtoday", subsystem: "image_variants", metricName: "available", unitName: "",
            helpText: "1 when libvips is loaded and image variants can be made, 0 when not")
    }

    /// The renderer of the server configured by `configuration`, or nil when libvips cannot be loaded.
    static func renderer(for configuration: AppConfiguration, metrics: PrometheusCollectorRegistry, logger: Logger) -> VipsImageRenderer? {
        let availability = VipsLibrary.load(path: configuration.vipsLibraryPath, logger: logger)
        metrics.makeGauge(descriptor: descriptor).set(availability.isAvailable ? 1.0 : 0.0)
        switch availability {
        case .available(let version):
            logger.info("image variants are made with libvips", metadata: [
                "version": "\(version)", "library": "\(configuration.vipsLibraryPath)",
            ])
            return VipsImageRenderer(maxPixels: configuration.maxImagePixels)
        case .unavailable(let reason):
            logger.warning(
                "image variants are unavailable: libvips cannot be loaded; install Debian's \(VipsLibrary.debianPackage) package (apt-get install \(VipsLibrary.debianPackage)) or set images.vipsLibrary (CLASSTODAY_IMAGES_VIPS_LIBRARY) to the library's path. Uploads and originals keep working; a variant URL answers the original (JPEG, PNG, WebP) or a 503 (HEIC/HEIF)",
                metadata: ["library": "\(configuration.vipsLibraryPath)", "reason": "\(reason)"])
            return nil
        }
    }
}
