import ClassTodayCore
import Foundation
import Testing
@testable import ClassTodayServer

@Suite("Chat bus notification payloads")
struct ChatBusPayloadTests {
    let node = UUID().uuidString

    func event(_ index: Int, textLength: Int) -> String {
        let message = ChatMessage(id: "m\(index)", roomId: "r\(index % 7)", seq: index, senderId: "u", kind: .text,
                                  text: String(repeating: "가", count: textLength), imageId: nil, clientId: "c\(index)",
                                  sentAt: Date(timeIntervalSince1970: 1_790_000_000))
        return PostgresChatBus.WireEvent(.message(message, recipients: ["u", "v"])).json
    }

    @Test("events published together are packed into payloads under PostgreSQL's limit, in order, each event once")
    func packing() throws {
        // Texts of 0 to 2,200 Hangul syllables (3 bytes each): the largest events come close to the event limit.
        let events = (0..<300).map { event($0, textLength: ($0 * 37) % 2_201) }
        #expect(events.allSatisfy { $0.utf8.count <= PostgresChatBus.eventLimit })
        let payloads = PostgresChatBus.payloads(events, node: node)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= PostgresChatBus.inlineLimit })
        var seqs: [Int] = []
        for payload in payloads {
            let envelope = try JSONDecoder().decode(PostgresChatBus.Envelope.self, from: Data(payload.utf8))
            #expect(envelope.node == node)
            for wire in envelope.events {
                guard case .message(let message, let recipients) = wire.chatEvent else {
                    Issue.record("expected a message event")
                    continue
                }
                #expect(recipients == ["u", "v"])
                seqs.append(message.seq)
            }
        }
        #expect(seqs == Array(0..<300))
    }

    @Test("small events share one payload; an empty batch sends nothing")
    func smallEvents() throws {
        let events = (0..<20).map { event($0, textLength: 5) }
        #expect(PostgresChatBus.payloads(events, node: node).count == 1)
        #expect(PostgresChatBus.payloads([], node: node).isEmpty)
    }

    @Test("every event but a message crosses the bus as itself: what one node writes, another reads back equal")
    func roundTrip() throws {
        let events: [ChatEvent] = [
            .read(roomId: "r", userId: "u", seq: 3, recipients: ["u", "v"]),
            .typing(roomId: "r", userId: "u", recipients: ["v"]),
            .presence(userId: "u", online: true, recipients: ["v", "w"]),
            .notification(userId: "u", json: #"{"kind":"alert"}"#),
            .removed(roomId: "r", messageId: "m", seq: 7, recipients: ["u", "v"]),
            .closed(userId: "u", sessionId: nil, reason: "account suspended"),
            .closed(userId: "u", sessionId: "family", reason: "signed out"),
        ]
        for event in events {
            let json = PostgresChatBus.WireEvent(event).json
            let decoded = try JSONDecoder().decode(PostgresChatBus.WireEvent.self, from: Data(json.utf8))
            #expect(decoded.chatEvent == event, "\(json)")
        }
    }
}
