import CVips
import Logging

/// libvips, bound at run time from its shared library (`dlopen`) and started once per process. Only image variants need
/// it: without it the server starts, takes uploads and serves originals.
public enum VipsLibrary {
    /// The library's file name when no path is configured, found where the system's loader looks.
    #if os(macOS)
    public static let defaultPath = "libvips.42.dylib"
    #else
    public static let defaultPath = "libvips.so.42"
    #endif
    /// The Debian (and Ubuntu) package that installs it.
    public static let debianPackage = "libvips42"

    /// Whether libvips can make image variants.
    public enum Availability: Sendable, Equatable {
        /// Bound and started; the library's version (`8.14.1`).
        case available(version: String)
        /// Not usable; why, for the operator (the loader's message or the missing function).
        case unavailable(reason: String)

        /// Whether variants can be made.
        public var isAvailable: Bool {
            if case .available = self { true } else { false }
        }
    }

    /// Binds libvips from `path` (a file name or a path) and starts it; from then on libvips' own log messages go to
    /// `logger` (see ``VipsLogRouter``). The first library bound serves the whole process; a later call only checks
    /// that its `path` opens.
    public static func load(path: String, logger: Logger) -> Availability {
        var reason = [CChar](repeating: 0, count: 512)
        guard ct_vips_bind(path, &reason, reason.count) == 0 else {
            return .unavailable(reason: reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        VipsLogRouter.shared.setFallback(logger)
        guard ct_vips_start("classtoday", { level, message in
            VipsLogRouter.shared.log(level: level, message: message.map { String(cString: $0) } ?? "")
        }) == 0 else {
            return .unavailable(reason: "libvips did not start: \(takeError())")
        }
        return .available(version: "\(ct_vips_version(0)).\(ct_vips_version(1)).\(ct_vips_version(2))")
    }

    /// The errors libvips reported since the last call, on one line, and clears them.
    static func takeError() -> String {
        let message = ct_vips_error().map { String(cString: $0) } ?? ""
        ct_vips_clear_error()
        return message.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}
