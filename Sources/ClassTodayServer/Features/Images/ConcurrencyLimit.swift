/// At most a fixed number of holders at once; the others wait in arrival order.
public actor ConcurrencyLimit {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates a limit of `width` (at least 1) concurrent holders.
    public init(width: Int) {
        available = max(1, width)
    }

    /// Runs `body` once a place is free.
    public func run<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        if available > 0 {
            available -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { available += 1 } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
