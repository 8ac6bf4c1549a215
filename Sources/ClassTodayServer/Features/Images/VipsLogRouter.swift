import Logging
import Synchronization

/// Sends libvips' own log messages (its GLib warnings, such as a damaged file's `Premature end of JPEG file`) through
/// the server's logger instead of raw to standard error.
///
/// libvips speaks from its own worker threads, so a message cannot be tied to a render by thread. It goes to the
/// logger of the render running at that moment (whose metadata carries the request id) when exactly one is running;
/// otherwise to the process's libvips logger, with the request ids of the renders running, if any.
public final class VipsLogRouter: Sendable {
    /// The process's router: libvips has one log handler per process.
    public static let shared = VipsLogRouter()

    private struct State {
        var fallback = Logger(label: "classtoday.vips")
        var renders: [Int: Logger] = [:]
        var nextRender = 0
    }

    private let state = Mutex(State())

    /// A router of its own (the tests'); the server uses ``shared``.
    init() {}

    /// Where messages go while no render, or several, run.
    func setFallback(_ logger: Logger) {
        state.withLock { $0.fallback = logger }
    }

    /// Runs `body`, a render, with libvips' messages attributed to `logger` while it runs.
    public func attributing<Value, Failure: Error>(to logger: Logger, _ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        let render = state.withLock { state in
            state.nextRender += 1
            state.renders[state.nextRender] = logger
            return state.nextRender
        }
        defer { state.withLock { _ = $0.renders.removeValue(forKey: render) } }
        return try body()
    }

    /// Logs one libvips message: `level` 0 a warning, 1 a critical warning, 2 a plain message.
    func log(level: Int32, message: String) {
        let (logger, requestIds) = state.withLock { state -> (Logger, [String]) in
            if state.renders.count == 1, let only = state.renders.values.first { return (only, []) }
            return (state.fallback, state.renders.values.compactMap { $0[metadataKey: "request_id"]?.description }.sorted())
        }
        var metadata: Logger.Metadata = ["source": "libvips"]
        if !requestIds.isEmpty { metadata["request_ids"] = .array(requestIds.map { .string($0) }) }
        logger.log(level: level == 1 ? .error : level == 2 ? .notice : .warning, "\(message)", metadata: metadata)
    }
}
