import NIOCore

/// Ends a connection the way nginx's lingering close does, so that a client still sending a request body sees the
/// response it was given instead of a reset or a stalled upload.
///
/// It sits first in the pipeline, on raw bytes. Until it receives ``Start`` it passes everything through. On
/// ``Start`` (sent once the last response is written) it shuts the write side after the pending writes (the client
/// reads the response, then EOF), then keeps reading and discarding what the client still sends, and closes the
/// connection when the client closes its side, when nothing arrives for `limits.idleTimeout`, after
/// `limits.maximumDuration`, or after `limits.maximumBytes` discarded bytes, whichever comes first.
///
/// However the connection ends, it first tells the handlers behind it that the input ended (`ChannelEvent.inputClosed`):
/// an HTTP request stream or an upgrade still waiting for its request then ends quietly, as when a client hangs up.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The outbound user event that starts the lingering close.
    struct Start: Sendable {}

    /// How long and how much a lingering close keeps reading before it closes the connection.
    struct Limits: Sendable {
        /// The longest a connection lingers. A server stopping waits for lingering connections, so this stays short.
        var maximumDuration: TimeAmount = .seconds(10)
        /// The longest it waits for the client's next bytes: nginx's `lingering_timeout`, long enough for a client
        /// on a busy machine still sending its body.
        var idleTimeout: TimeAmount = .seconds(5)
        /// The most bytes it discards.
        var maximumBytes = 64 << 20

        /// The default limits: 10 seconds, 5 seconds between reads, 64 MiB.
        init() {}
    }

    private enum State {
        case open
        case lingering(discardedBytes: Int, lastRead: NIODeadline)
        case closed
    }

    private let limits: Limits
    private var state = State.open
    private var timer: Scheduled<Void>?
    private var deadline = NIODeadline.distantFuture

    /// A handler that lingers within `limits`.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Start else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        promise?.succeed(())
        guard case .open = state else { return }
        let now = context.eventLoop.now
        state = .lingering(discardedBytes: 0, lastRead: now)
        deadline = now + limits.maximumDuration
        context.flush()
        context.close(mode: .output, promise: nil)
        scheduleCheck(context: context, at: now + limits.idleTimeout)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .open:
            context.fireChannelRead(data)
        case .lingering(let discarded, _):
            let total = discarded + unwrapInboundIn(data).readableBytes
            state = .lingering(discardedBytes: total, lastRead: context.eventLoop.now)
            if total > limits.maximumBytes { finish(context: context) }
        case .closed:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        switch state {
        case .open: context.fireChannelReadComplete()
        case .lingering: context.read()
        case .closed: break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .lingering = state else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed {
            finish(context: context)
        } else if event is ChannelShouldQuiesceEvent {
            finish(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard case .lingering = state else {
            context.fireErrorCaught(error)
            return
        }
        // The client reset the connection or the like while we were only discarding its bytes.
        finish(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The socket closed first (the client ended its side after ours was shut): the handlers behind still learn
        // that the input ended before they learn that the channel is gone.
        endLingering(context: context)
        cancelTimer()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    /// Closes at the deadline, or when the client has been quiet for the idle timeout; otherwise checks again later.
    private func scheduleCheck(context: ChannelHandlerContext, at instant: NIODeadline) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: min(instant, deadline)) { [self] in
            guard case .lingering(_, let lastRead) = state else { return }
            let now = context.eventLoop.now
            if now >= deadline || now >= lastRead + limits.idleTimeout {
                finish(context: context)
            } else {
                scheduleCheck(context: context, at: lastRead + limits.idleTimeout)
            }
        }
    }

    /// Ends the lingering close: closes the connection.
    private func finish(context: ChannelHandlerContext) {
        guard case .lingering = state else { return }
        endLingering(context: context)
        context.close(promise: nil)
    }

    /// Leaves the lingering state, telling the handlers behind that the input ended.
    private func endLingering(context: ChannelHandlerContext) {
        guard case .lingering = state else { return }
        state = .closed
        cancelTimer()
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
