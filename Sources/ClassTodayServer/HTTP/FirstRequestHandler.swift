import NIOCore
import NIOHTTP1

/// Looks after a connection until its first request head has been read, the one stretch where Hummingbird does not:
/// hummingbird-websocket's HTTP/1 upgrade handler holds the pipeline until then, and Hummingbird's own handlers (its
/// answers to parse errors, its idle timeout) are only added behind it once it has read a whole request head.
///
/// It sits behind the upgrade handler until the first request has passed it or the connection was upgraded, then
/// leaves. Until then:
/// - **A malformed first request** (a control byte in a header, a bad request line or version, a bad
///   `Content-Length`) gets a 400 `application/problem+json` with `Connection: close`, then the
///   ``LingeringCloseHandler``'s lingering close. Without it nobody answered, and the connection stayed open. Later
///   parse errors reach Hummingbird, which answers them itself.
/// - **A head that does not arrive whole within `deadline`** ends the connection, without an answer, as nginx's
///   `client_header_timeout` does: a client that connects and sends nothing, or trickles its head a byte at a time
///   (slowloris), cannot hold a connection open.
final class FirstRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case waiting
        case answeredMalformed
        case timedOut
    }

    private let deadline: TimeAmount
    private var state = State.waiting
    private var timer: Scheduled<Void>?

    /// A handler that ends its connection if the first request head has not arrived `deadline` after it was added.
    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) { [self] in
            guard case .waiting = state else { return }
            state = .timedOut
            context.closeAsIfInputEnded()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        leave(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if event is HTTPServerUpgradeEvents { leave(context: context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once answered or timed out, the connection is ending: a head cut short by the close is no request to answer.
        guard case .waiting = state else { return }
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        state = .answeredMalformed
        cancelTimer()
        let body = Problem.malformedHTTP.jsonBody
        let headers = HTTPHeaders([
            ("Content-Type", "application/problem+json"), ("Content-Length", "\(body.readableBytes)"), ("Connection", "close"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.triggerUserOutboundEvent(LingeringCloseHandler.Start(), promise: nil)
    }

    private func leave(context: ChannelHandlerContext) {
        guard case .waiting = state else { return }
        cancelTimer()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
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
