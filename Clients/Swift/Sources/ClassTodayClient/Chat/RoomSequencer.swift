/// Keeps each room's messages in seq order, each exactly once, across reconnects.
///
/// The server numbers a room's messages 1, 2, 3, ... with no gaps. The sequencer remembers the last seq it delivered
/// for each room: a message at or below it is a repeat (a `sync` after a reconnect, a resent message) and is dropped;
/// the next seq is delivered; a later one is held until the messages before it arrive, and the caller is asked to
/// `sync` the room from the last delivered seq.
struct RoomSequencer: Sendable {
    /// The last delivered seq of each room.
    private(set) var lastSeq: [String: Int] = [:]
    /// Messages that arrived ahead of a gap, by room and seq.
    private var held: [String: [Int: Components.Schemas.Message]] = [:]

    /// What to do with an arriving message.
    struct Outcome: Sendable {
        /// Messages to deliver now, in order.
        var deliver: [Components.Schemas.Message] = []
        /// When set, ask the server for the room's messages after this seq.
        var syncAfter: Int?
    }

    /// Starts following a room whose messages up to `seq` the app already has (0: none).
    ///
    /// Never moves a room's position backwards.
    mutating func follow(roomId: String, after seq: Int) {
        lastSeq[roomId] = max(lastSeq[roomId] ?? seq, seq)
    }

    /// Takes an arriving message.
    ///
    /// A room seen for the first time starts at its first message that arrives.
    mutating func accept(_ message: Components.Schemas.Message) -> Outcome {
        let roomId = message.roomId
        guard let last = lastSeq[roomId] else {
            lastSeq[roomId] = message.seq
            return Outcome(deliver: [message])
        }
        if message.seq <= last { return Outcome() }
        if message.seq > last + 1 {
            let isNewGap = held[roomId, default: [:]].isEmpty
            held[roomId, default: [:]][message.seq] = message
            return Outcome(syncAfter: isNewGap ? last : nil)
        }
        var outcome = Outcome(deliver: [message])
        var next = message.seq
        while let waiting = held[roomId]?.removeValue(forKey: next + 1) {
            outcome.deliver.append(waiting)
            next += 1
        }
        lastSeq[roomId] = next
        return outcome
    }
}
