import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// A server child channel that adds, around `Base` (an HTTP/1 channel), what makes every connection end: a bounded
/// lingering close (``LingeringCloseHandler``, first in the pipeline), an end when the server stops
/// (``QuiescingHandler``, behind it), a deadline for the first request head (``RequestHeadDeadlineHandler``, behind
/// the HTTP/1 parser), an answer to a malformed first request (``MalformedRequestHandler``, behind the HTTP/1 upgrade
/// handler) and the router's own answer to a refused WebSocket upgrade (``UpgradeRefusalHandler``, behind it).
struct HardenedHTTPChannel<Base: ServerChildChannel>: ServerChildChannel {
    /// The channel this one adds to.
    let base: Base
    /// How long a new connection may take to send its first request head.
    let firstRequestDeadline: TimeAmount
    /// How long and how much a closing connection keeps reading.
    let lingering: LingeringCloseHandler.Limits
    /// How long a stopping server lets a connection finish its request (``QuiescingHandler``).
    let shutdownGrace: TimeAmount

    /// Sets `channel` up as `base` does, then adds the five handlers.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        let (lingering, firstRequestDeadline, shutdownGrace) = (lingering, firstRequestDeadline, shutdownGrace)
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let lingeringHandler = LingeringCloseHandler(limits: lingering)
            try pipeline.addHandler(lingeringHandler, position: .first)
            try pipeline.addHandler(QuiescingHandler(grace: shutdownGrace), position: .after(lingeringHandler))
            let parser = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestHeadDeadlineHandler(deadline: firstRequestDeadline), position: .after(parser.handler))
            try pipeline.addHandler(MalformedRequestHandler())
            try pipeline.addHandler(UpgradeRefusalHandler())
            return value
        }
    }

    /// Serves the connection as `base` does, on the connection's own event loop (``EventLoopExecutor``): its requests
    /// arrive and its responses leave there, so a request costs no hop to the task pool's threads and back. Work that
    /// holds a thread runs elsewhere: bcrypt and images on ``WorkerPool``s, SQLite statements on GRDB's threads.
    func handle(value: Base.Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopExecutor(eventLoop: value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with WebSocket upgrades routed by `webSocketRouter`, where every connection ends cleanly: a malformed
    /// request gets a 400, a response that leaves its request body unread (or that asks to close) ends the connection
    /// (``CloseAfterResponseHandler``), and each end is a lingering close bounded by `lingering`.
    ///
    /// A connection is closed once it has been idle for `idleTimeout` with nothing being answered: before its first
    /// request head is whole (``RequestHeadDeadlineHandler``), between requests and between the parts of a request body
    /// (Hummingbird's idle timeout). A request the server is still answering keeps its connection; an upgraded
    /// WebSocket is kept alive by its pings instead. When the server stops, a connection still mid-request gets
    /// `shutdownGrace` to finish it.
    static func hardenedHTTP1WebSocketUpgrade(
        webSocketRouter: Router<AppRequestContext>, webSocket: WebSocketServerConfiguration,
        idleTimeout: Duration, shutdownGrace: Duration, lingering: LingeringCloseHandler.Limits = .init()
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        let idleTimeout = TimeAmount(idleTimeout)
        return HTTPServerBuilder { responder in
            HardenedHTTPChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(
                        http1: .init(additionalChannelHandlers: [CloseAfterResponseHandler()], idleTimeout: idleTimeout),
                        ws: webSocket)),
                firstRequestDeadline: idleTimeout, lingering: lingering, shutdownGrace: TimeAmount(shutdownGrace))
        }
    }
}
