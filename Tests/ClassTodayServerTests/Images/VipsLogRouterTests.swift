import Logging
import Testing
@testable import ClassTodayServer

/// libvips' own messages reach the server's logger, with the request id of the render that was running.
@Suite("libvips log routing")
struct VipsLogRouterTests {
    /// A request's logger recording into `records`, with `requestId` in its metadata.
    static func logger(_ records: LogRecords, requestId: String? = nil) -> Logger {
        var logger = records.logger(label: "test.vips-log")
        if let requestId { logger[metadataKey: "request_id"] = .string(requestId) }
        return logger
    }

    @Test("a message while one render runs goes to that render's logger, with its request id, as a warning")
    func oneRender() {
        let router = VipsLogRouter()
        let server = LogRecords(), request = LogRecords()
        router.setFallback(Self.logger(server))
        router.attributing(to: Self.logger(request, requestId: "req-1")) {
            router.log(level: 0, message: "VipsJpeg: Premature end of JPEG file")
        }
        let entries = request.all
        #expect(entries.count == 1)
        #expect(entries.first?.level == .warning && entries.first?.message == "VipsJpeg: Premature end of JPEG file")
        #expect(entries.first?.metadata["request_id"] == "req-1" && entries.first?.metadata["source"] == "libvips")
        #expect(server.all.isEmpty)
    }

    @Test("with several renders or none, the server's logger gets it, naming the running renders' request ids")
    func severalOrNone() {
        let router = VipsLogRouter()
        let server = LogRecords(), first = LogRecords(), second = LogRecords()
        router.setFallback(Self.logger(server))
        router.log(level: 1, message: "alone")
        router.attributing(to: Self.logger(first, requestId: "req-a")) {
            router.attributing(to: Self.logger(second, requestId: "req-b")) {
                router.log(level: 2, message: "shared")
            }
        }
        let entries = server.all
        #expect(entries.map(\.message) == ["alone", "shared"])
        #expect(entries.map(\.level) == [.error, .notice])
        #expect(entries.first?.metadata["request_ids"] == nil)
        #expect(entries.last?.metadata["request_ids"] == .array([.string("req-a"), .string("req-b")]))
        #expect(first.all.isEmpty && second.all.isEmpty)
    }
}
