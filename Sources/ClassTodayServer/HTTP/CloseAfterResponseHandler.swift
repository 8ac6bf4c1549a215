import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Ends an HTTP/1.1 connection after a response that leaves its request body unread, after a response to a
/// request that asked for `Connection: close`, and after a response that says `Connection: close` itself.
///
/// A response written before its request's body has arrived (a 413 for an oversized body, a 401 before an upload is
/// read) cannot be followed by another request on that connection: the rest of the body would have to be read first,
/// however large it is. Such a response gets `Connection: close`, and once it is written this handler starts the
/// ``LingeringCloseHandler``'s bounded lingering close, so that a client still sending its body sees the response
/// promptly. Hummingbird's own half-close of the write side (after a `Connection: close` request or a parse error)
/// is turned into the same lingering close, so that no finished connection stays open waiting for the client.
///
/// It sits among the HTTP handlers of a connection that was not upgraded, on HTTPTypes request and response parts.
final class CloseAfterResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// A request read and not yet answered.
    private struct PendingRequest {
        var asksToClose: Bool
        var bodyComplete = false
    }

    /// Requests in the order they arrived, until their final response starts.
    private var pending: [PendingRequest] = []
    /// Whether the response being written ends the connection.
    private var closesAfterResponse = false
    /// Whether the lingering close has started; from then on, nothing more is read or answered.
    private var closing = false

    /// A handler for one connection.
    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            pending.append(PendingRequest(asksToClose: Self.saysClose(request.headerFields)))
        case .body:
            break
        case .end:
            if let last = pending.indices.last { pending[last].bodyComplete = true }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational:
            let request = pending.isEmpty ? nil : pending.removeFirst()
            closesAfterResponse = (request.map { !$0.bodyComplete || $0.asksToClose } ?? false) || Self.saysClose(response.headerFields)
            if closesAfterResponse { response.headerFields[.connection] = "close" }
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end where closesAfterResponse:
            context.write(data, promise: promise)
            startClosing(context: context)
        default:
            context.write(data, promise: promise)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        startClosing(context: context)
        promise?.succeed(())
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once closing, what the client sent (a truncated body, bytes after a parse error) no longer matters.
        guard !closing else { return }
        context.fireErrorCaught(error)
    }

    private func startClosing(context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        context.triggerUserOutboundEvent(LingeringCloseHandler.Start(), promise: nil)
    }

    /// Whether a `Connection` header lists the `close` option.
    private static func saysClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }
}
