import NIOCore
import NIOHTTP1

/// Ends a connection whose first request head has not arrived whole within `deadline`, without an answer, as nginx's
/// `client_header_timeout` does: a client that connects and sends nothing, or trickles its head a line at a time
/// (slowloris), cannot hold a connection open. Later requests are Hummingbird's idle timeout's to bound.
///
/// It sits right behind the HTTP/1 parser, in front of the upgrade handler, so that the head counts when it is read,
/// not when the upgrade handler lets it go (a WebSocket upgrade first checks its token). It leaves once the first
/// head has passed.
final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?
    private var timedOut = false

    /// A handler that ends its connection if the first request head has not arrived `deadline` after it was added.
    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) { [self] in
            timedOut = true
            context.closeAsIfInputEnded()
        }
    }

    /// Called once the head has passed, and when the connection closes: the timer goes with the handler.
    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        guard !timedOut else { return }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A head cut short by the deadline's close is no malformed request to answer.
        guard !timedOut else { return }
        context.fireErrorCaught(error)
    }
}

extension ChannelHandlerContext {
    /// Closes the connection as if the client had hung up: the whole pipeline first hears that the input ended, so
    /// that an HTTP/1 upgrade still waiting for its request ends quietly.
    func closeAsIfInputEnded() {
        pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        close(promise: nil)
    }
}
