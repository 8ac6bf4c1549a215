import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import Testing
@testable import ClassTodayServer

/// The hand-written JSON of chat frames and bus events against what a JSON parser reads back, and against the
/// `Encodable` forms the HTTP API uses for the same objects.
@Suite("Chat frames and bus events as JSON")
struct ChatFrameTests {
    static func randomMessage(_ random: inout SeededRandom) -> ChatMessage {
        let hasImage = Bool.random(using: &random)
        return ChatMessage(
            id: UUID().uuidString, roomId: random.awkwardText(), seq: Int.random(in: 1...1_000_000, using: &random),
            senderId: random.awkwardText(), kind: hasImage ? .image : .text,
            text: hasImage ? nil : random.awkwardText(), imageId: hasImage ? UUID().uuidString : nil,
            clientId: Bool.random(using: &random) ? random.awkwardText() : nil,
            sentAt: Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &random)))
    }

    /// `count` random messages, the same on every run.
    static func randomMessages(_ count: Int, seed: UInt64) -> [ChatMessage] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in randomMessage(&random) }
    }

    static func object(_ text: String) throws -> NSDictionary {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(parsed as? NSDictionary)
    }

    @Test("strings of any characters read back unchanged")
    func strings() throws {
        var random = SeededRandom(seed: 41)
        for _ in 0..<500 {
            let value = random.awkwardText()
            var writer = JSONObjectWriter()
            writer.add("value", value)
            writer.add("list", [value, ""])
            let text = writer.finish()
            let object = try Self.object(text)
            #expect(object["value"] as? String == value, "\(text)")
            #expect(object["list"] as? [String] == [value, ""])
        }
    }

    @Test("dates are RFC 3339 in UTC, whole seconds, as the format style writes them")
    func dates() {
        var random = SeededRandom(seed: 42)
        let style = Date.ISO8601FormatStyle(timeZone: .gmt)
        let edges: [TimeInterval] = [0, -0.5, -1, 951_782_400, 951_868_799.999, 4_102_444_800, -2_208_988_800, 253_402_300_799]
        let dates = edges.map(Date.init(timeIntervalSince1970:))
            + (0..<2_000).map { _ in Date(timeIntervalSince1970: Double.random(in: -3_000_000_000...8_000_000_000, using: &random)) }
        for date in dates {
            #expect(RFC3339.format(date) == date.formatted(style), "\(date.timeIntervalSince1970)")
        }
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1e15)) == "9999-12-31T23:59:59Z")
    }

    @Test("a message frame carries the same message object as the HTTP API")
    func messageFrame() throws {
        for message in Self.randomMessages(200, seed: 43) {
            let frame = try Self.object(ServerFrame.message(message))
            let http = try Self.object(String(decoding: try APIJSONEncoder.encode(MessageResponse(message: message)), as: UTF8.self))
            #expect(frame["type"] as? String == "message")
            #expect(frame["roomId"] as? String == message.roomId)
            #expect(frame["message"] as? NSDictionary == http)
            #expect(http.count == 11)
        }
    }

    @Test("an ack names the stored message; a missing client id is left out")
    func ack() throws {
        for message in Self.randomMessages(100, seed: 44) {
            let ack = try Self.object(ServerFrame.ack(message))
            #expect(ack["type"] as? String == "ack")
            #expect(ack["clientId"] as? String == message.clientId)
            #expect((ack["clientId"] != nil) == (message.clientId != nil))
            #expect(ack["roomId"] as? String == message.roomId)
            #expect(ack["seq"] as? Int == message.seq)
            #expect(ack["messageId"] as? String == message.id)
            #expect(ack["sentAt"] as? String == RFC3339.format(message.sentAt))
        }
    }

    @Test("the other frames have the contract's fields")
    func otherFrames() throws {
        let read = try Self.object(ServerFrame.read(roomId: "r\"1", userId: "u/1", seq: 7))
        #expect(read == ["type": "read", "roomId": "r\"1", "userId": "u/1", "seq": 7])
        let typing = try Self.object(ServerFrame.typing(roomId: "r", userId: "사용자"))
        #expect(typing == ["type": "typing", "roomId": "r", "userId": "사용자"])
        let presence = try Self.object(ServerFrame.presence(userId: "u", online: false))
        #expect(presence == ["type": "presence", "userId": "u", "online": false])
        let notification = try Self.object(ServerFrame.notification(json: #"{"id":"n1","kind":"alert"}"#))
        #expect(notification == ["type": "notification", "notification": ["id": "n1", "kind": "alert"]])
        let error = try Self.object(ServerFrame.error(code: "bad_frame", message: "frames must be \"JSON\""))
        #expect(error == ["type": "error", "code": "bad_frame", "message": "frames must be \"JSON\""])
        let failedSend = try Self.object(ServerFrame.error(code: "not_found", message: "no room", clientId: "c1"))
        #expect(failedSend["clientId"] as? String == "c1")
        #expect(try Self.object(ServerFrame.pong) == ["type": "pong"])
    }

    @Test("every bus event reads back as the event written")
    func wireEvents() throws {
        var random = SeededRandom(seed: 45)
        for _ in 0..<100 {
            let message = Self.randomMessage(&random)
            let recipients = [random.awkwardText(), random.awkwardText()]
            let events: [PostgresChatBus.WireEvent] = [
                .init(.message(message, recipients: recipients)),
                .messageReference(roomId: message.roomId, seq: message.seq, recipients: recipients),
                .init(.read(roomId: message.roomId, userId: message.senderId, seq: message.seq, recipients: recipients)),
                .init(.typing(roomId: message.roomId, userId: message.senderId, recipients: recipients)),
                .init(.presence(userId: message.senderId, online: Bool.random(using: &random), recipients: recipients)),
                .init(.notification(userId: message.senderId, json: ServerFrame.messageObject(message))),
            ]
            for event in events {
                let decoded = try JSONDecoder().decode(PostgresChatBus.WireEvent.self, from: Data(event.json.utf8))
                #expect(String(describing: decoded) == String(describing: event))
            }
            let sent = try JSONDecoder().decode(PostgresChatBus.WireEvent.self, from: Data(PostgresChatBus.WireEvent(.message(message, recipients: recipients)).json.utf8))
            guard case .message(let received, _) = sent.chatEvent else {
                Issue.record("expected a message")
                continue
            }
            // Milliseconds survive the trip.
            #expect(received.sentAt.millisecondsSince1970 == message.sentAt.millisecondsSince1970)
            #expect(received.text == message.text && received.clientId == message.clientId && received.imageId == message.imageId)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PostgresChatBus.WireEvent.self, from: Data(#"{"type":"unknown"}"#.utf8))
        }
    }
}
