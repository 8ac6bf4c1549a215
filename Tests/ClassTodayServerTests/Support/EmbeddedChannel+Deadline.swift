import NIOCore
import NIOEmbedded

extension EmbeddedChannel {
    /// Whether the channel, left alone, is still open a second before `deadline` from now and closed at it, on the
    /// embedded loop's virtual clock.
    func closesExactly(after deadline: TimeAmount) -> Bool {
        embeddedEventLoop.advanceTime(by: deadline - .seconds(1))
        guard isActive else { return false }
        embeddedEventLoop.advanceTime(by: .seconds(1))
        return !isActive
    }
}
