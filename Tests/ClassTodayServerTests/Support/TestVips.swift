import ClassTodayServer
import Foundation
import Logging

/// libvips in the tests: the library every test server loads, which is the server's own setting's environment variable
/// `CLASSTODAY_IMAGES_VIPS_LIBRARY` when set (pointing it at a missing file runs the suite as on a machine without
/// libvips) and the default file name otherwise.
enum TestVips {
    /// The library the test servers and the test image helpers load.
    static let libraryPath = ProcessInfo.processInfo.environment["CLASSTODAY_IMAGES_VIPS_LIBRARY"] ?? VipsLibrary.defaultPath

    /// Whether it loads here; the tests that decode images are skipped when not.
    static let isAvailable = VipsLibrary.load(
        path: libraryPath, logger: Logger(label: "test.vips") { _ in SwiftLogNoOpLogHandler() }).isAvailable

    /// A library path that never loads, for the tests of a server without libvips.
    static let missingLibrary = "/nonexistent/classtoday-tests/libvips.so.42"
}
