import NIOCore

/// Makes a stopping server's connections end, in the states where Hummingbird's own handlers never hear that the
/// server stops (`ChannelShouldQuiesceEvent`): before the first request has been read, the HTTP/1 upgrade handler
/// holds the pipeline and nothing behind it answers the event, so a browser's preconnected socket kept the server
/// waiting until the browser closed it.
///
/// It sits behind ``LingeringCloseHandler``, on raw bytes. When the server stops:
/// - a connection that has sent nothing is closed at once;
/// - otherwise the event goes on to the handlers behind, and again after every later read, so a request half read
///   when the server stopped is answered and its connection then closed, once the handlers that see it are in place;
/// - whatever the state, the connection is closed after `grace`, so a client that never finishes its request or
///   never closes cannot hold the server's exit.
final class QuiescingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let grace: TimeAmount
    private var receivedBytes = false
    private var quiescing = false
    private var deadline: Scheduled<Void>?

    /// A handler that closes its connection at most `grace` after the server starts stopping.
    init(grace: TimeAmount) {
        self.grace = grace
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receivedBytes = true
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        if quiescing { context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent, !quiescing else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        quiescing = true
        guard receivedBytes else {
            close(context: context)
            return
        }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: grace) { [self] in close(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    private func close(context: ChannelHandlerContext) {
        cancelDeadline()
        context.closeAsIfInputEnded()
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }
}
