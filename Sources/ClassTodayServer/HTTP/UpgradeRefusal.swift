import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// Answers a refused WebSocket upgrade with the router's own response (a 401 problem for a bad token, a 404 for a
/// path with no socket, a 429 when rate limited) instead of the empty 400 that hummingbird-websocket writes for every
/// refusal.
///
/// The upgrade decision runs the request through the router (``UpgradeRefusalMiddleware``); when the router does
/// not answer 200 the middleware keeps its response here, on the connection, and hummingbird-websocket then writes its
/// fixed `400` with `Connection: close`. This handler, which sits behind the HTTP/1 upgrade handler on NIOHTTP1
/// parts, writes the kept response in place of that 400. It leaves the pipeline once the connection is upgraded or
/// its first request was answered, so that WebSocket frames and later requests never pass through it.
final class UpgradeRefusalHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response kept for a refused upgrade.
    struct Refusal: Sendable {
        /// Its status.
        var status: HTTPResponse.Status
        /// Its header fields.
        var headers: HTTPFields
        /// Its whole body.
        var body: ByteBuffer
    }

    private var refusal: Refusal?
    /// Whether the kept response replaced the one being written.
    private var replacing = false

    /// A handler for one connection.
    init() {}

    /// Keeps `refusal` as the answer to this connection's upgrade request.
    func refuse(with refusal: Refusal) {
        self.refusal = refusal
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if event is HTTPServerUpgradeEvents { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            guard let refusal, head.status == .badRequest else {
                context.write(data, promise: promise)
                return
            }
            replacing = true
            var headers = HTTPHeaders(refusal.headers.map { ($0.name.rawName, $0.value) })
            headers.replaceOrAdd(name: "Content-Length", value: "\(refusal.body.readableBytes)")
            headers.replaceOrAdd(name: "Connection", value: "close")
            let status = HTTPResponseStatus(statusCode: refusal.status.code, reasonPhrase: refusal.status.reasonPhrase)
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: promise)
        case .body(let body):
            // The refused upgrade's own 400 has no body; anything else passes.
            if replacing { promise?.succeed() } else { context.write(wrapOutboundOut(.body(body)), promise: promise) }
        case .end(let trailers):
            if replacing, let body = refusal?.body, body.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            }
            context.write(wrapOutboundOut(.end(trailers)), promise: promise)
            replacing = false
            refusal = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// Keeps the router's answer to a WebSocket upgrade request that it did not accept, for ``UpgradeRefusalHandler``.
///
/// Outermost in the router, so the kept response is the one a plain request would get, with every header.
struct UpgradeRefusalMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The largest refusal body kept; a problem document is far smaller.
    static let maximumBody = 16 * 1024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard response.status != .ok, request.headers[.upgrade]?.lowercased() == "websocket" else {
            return response
        }
        let collector = BodyCollector(limit: Self.maximumBody)
        try await response.body.write(collector)
        let refusal = UpgradeRefusalHandler.Refusal(status: response.status, headers: response.headers, body: collector.collected)
        let channel = context.channel
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: UpgradeRefusalHandler.self).refuse(with: refusal)
        }.get()
        return response
    }

    /// Collects a response body into one buffer, up to a limit.
    private struct BodyCollector: ResponseBodyWriter {
        /// The bytes so far, shared by the copies that writing the body makes of this writer.
        private final class Bytes: Sendable {
            let buffer = Mutex(ByteBuffer())
        }

        private let bytes = Bytes()
        /// The most bytes kept.
        let limit: Int

        init(limit: Int) {
            self.limit = limit
        }

        /// The bytes collected.
        var collected: ByteBuffer { bytes.buffer.withLock { $0 } }

        mutating func write(_ buffer: ByteBuffer) async throws {
            bytes.buffer.withLock { collected in
                let room = max(0, limit - collected.readableBytes)
                collected.writeImmutableBuffer(buffer.getSlice(at: buffer.readerIndex, length: min(room, buffer.readableBytes)) ?? ByteBuffer())
            }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
