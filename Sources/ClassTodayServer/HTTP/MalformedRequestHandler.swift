import NIOCore
import NIOHTTP1

/// Answers a first request that the HTTP/1 parser rejects with a 400 problem, then closes the connection.
///
/// hummingbird-websocket's upgrade pipeline turns NIO's HTTP error handling off because Hummingbird answers parse
/// errors itself, but Hummingbird only sees a connection once the upgrade handler has read a whole request head. A
/// first request that fails in the parser (a control byte in a header, a bad request line or version, a bad
/// `Content-Length`) never gets that far: nobody answered it, and the connection stayed open. This handler sits
/// behind the upgrade handler until the first request has passed it or the connection was upgraded, then leaves.
/// On a parse error before that, it writes a 400 `application/problem+json` with `Connection: close` and starts the
/// ``LingeringCloseHandler``'s lingering close. Later parse errors reach Hummingbird, which answers them itself.
final class MalformedRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    /// A handler for one connection.
    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        leave(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if event is HTTPServerUpgradeEvents { leave(context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else { return }
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
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
        guard !answered else { return }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
