import ClassTodayClient
import Foundation
import Testing

/// The chat client across a server restart: it reconnects with backoff and syncs each room from the last seq it
/// delivered, so the app sees every message once, in order.
@Suite("Chat client across a server restart", .serialized)
struct ChatReconnectTests {
    @Test("no message is lost or doubled when the server stops (SIGTERM) and starts again on the same data")
    func survivesRestart() async throws {
        try await withServer { server in
            let teacher = try await TestUser.signUp("Teacher", on: server)
            let student = try await TestUser.signUp("Student", on: server)
            let listing = try await teacher.client.createClass(body: .json(.init(
                value1: .init(), value2: .init(_type: .sell, name: "Piano for beginners")
            ))).created.body.json
            let room = try await student.client.openRoom(body: .json(.init(classId: listing.id))).created.body.json

            // A slow first retry, so that the student's messages below are stored while the teacher's client is
            // still away: after the reconnect only its `sync` can bring them (a live message would not follow).
            let chat = teacher.chatClient(on: server, backoff: ReconnectBackoff(initial: .seconds(2), maximum: .seconds(2), jitter: 0))
            let recorder = ChatRecorder(chat)
            await chat.follow(roomId: room.id, after: 0)
            await chat.start()
            #expect(try await eventually { await recorder.connections == 1 })

            // Before the restart: the student's REST messages and the teacher's own send.
            for index in 1...3 {
                _ = try await student.client.sendMessage(path: .init(id: room.id), body: .json(.text("before \(index)", clientId: "s-\(index)"))).created
            }
            #expect(try await chat.send(.text("reply before"), to: room.id, clientId: "t-1").seq == 4)
            #expect(try await eventually { await recorder.messages.count == 4 })

            // First restart: the server stops with SIGTERM and starts again on the same data folder and port; the
            // student writes while the teacher's client waits to reconnect.
            #expect(try await server.terminate() == 0)
            #expect(try await eventually { await recorder.disconnections == 1 })
            try await server.launch()
            for index in 4...6 {
                _ = try await student.client.sendMessage(path: .init(id: room.id), body: .json(.text("missed \(index)", clientId: "s-\(index)"))).created
            }
            #expect(await recorder.connections == 1, "the client came back before the messages were stored")
            #expect(try await eventually { await recorder.messages.count == 7 })

            // Second restart: a send made while the server is down waits, is sent again after the reconnect, and is
            // stored and shown once.
            #expect(try await server.terminate() == 0)
            #expect(try await eventually { await recorder.disconnections == 2 })
            let waitingSend = Task { try await chat.send(.text("sent while down"), to: room.id, clientId: "t-2") }
            try await server.launch()
            let ack = try await waitingSend.value
            #expect(ack.clientId == "t-2" && ack.seq == 8)
            #expect(try await eventually { await recorder.messages.count >= 8 })
            // Any straggler (a duplicate would show here) gets a moment to arrive.
            try await Task.sleep(for: .milliseconds(500))
            await chat.stop()

            let delivered = await recorder.messages
            #expect(delivered.map(\.seq) == Array(1...8), "every seq once, in order")
            #expect(Set(delivered.compactMap(\.clientId)) == ["s-1", "s-2", "s-3", "s-4", "s-5", "s-6", "t-1", "t-2"])
            #expect(await recorder.connections == 3)
            let stored = try await teacher.client.listMessages(path: .init(id: room.id), query: .init(limit: 100)).ok.body.json
            #expect(stored.items.map(\.seq) == Array((1...8).reversed()), "the server stored each send once")
        }
    }
}
