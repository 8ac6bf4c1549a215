import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOWebSocket
import WSCore
import ClassTodayTestSupport
import Testing
@testable import ClassTodayServer

/// Chat through real sockets: a live server, WebSocket clients for the members and their devices.
@Suite("Chat")
struct ChatTests {
    /// A live server with a seller (writer of a sell class), a buyer with an open room, and an outsider.
    struct Scene {
        let client: any TestClientProtocol
        let port: Int
        let seller: (token: String, id: String)
        let buyer: (token: String, id: String)
        let outsider: (token: String, id: String)
        let roomId: String
        let classId: String
    }

    static func withScene(
        _ customize: (inout AppConfiguration) -> Void = { _ in }, _ body: @Sendable (Scene) async throws -> Void
    ) async throws {
        let configuration = try TestServer.configuration(customize)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let app = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await app.runTest(.live) { client in
            let seller = try await client.signup(nickname: "선생님")
            let buyer = try await client.signup(nickname: "학생")
            let outsider = try await client.signup(nickname: "구경꾼")
            let (classId, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            try await body(Scene(client: client, port: try #require(client.port), seller: seller, buyer: buyer, outsider: outsider,
                                 roomId: roomId, classId: classId))
        }
    }

    /// The rooms `token`'s user has, as listed.
    static func rooms(of token: String, _ scene: Scene) async throws -> [RoomResponse] {
        try await scene.client.send(.get, "/v1/chat/rooms", token: token).decoded(as: TestPage<RoomResponse>.self).items
    }

    @Test("rooms: opened once per (class, user), listed with roles, never on one's own class")
    func rooms() async throws {
        try await Self.withScene { scene in
            let again = try await scene.client.send(.post, "/v1/chat/rooms", json: ["classId": scene.classId], token: scene.buyer.token)
            #expect(again.status == .ok)
            #expect(try again.decoded(as: RoomResponse.self).id == scene.roomId)
            let own = try await scene.client.send(.post, "/v1/chat/rooms", json: ["classId": scene.classId], token: scene.seller.token)
            #expect(try own.problemFields() == ["classId"])
            let missing = try await scene.client.send(.post, "/v1/chat/rooms", json: ["classId": "01ZZZZZZZZZZZZZZZZZZZZZZZZ"], token: scene.buyer.token)
            #expect(missing.status == .notFound)
            let rooms = try await Self.rooms(of: scene.seller.token, scene)
            #expect(rooms.map(\.id) == [scene.roomId])
            let room = try #require(rooms.first)
            #expect(room.seller.id == scene.seller.id && room.buyer.id == scene.buyer.id)
            #expect(room.class.id == scene.classId && room.class.name == "기타 왕초보 레슨" && room.class.status == .open)
            #expect(room.lastMessage == nil)
            #expect(room.unreadCount == 0 && room.lastReadSeq == 0 && !room.muted)
        }
    }

    @Test("a room carries its class's first image with its variants, or null for both without one")
    func roomsShowTheClassImage() async throws {
        try await TestServer.withRouter { client in
            let seller = try await client.signup(nickname: "선생님")
            let buyer = try await client.signup(nickname: "학생")
            var images: [String] = []
            for width in [6, 7] {
                let upload = try await client.upload(TestImages.png(width: width, height: 4), contentType: "image/png", token: seller.token)
                images.append(try #require(try upload.jsonObject()["id"] as? String))
            }
            let pictured = try #require(try await client.createClass(token: seller.token, ["imageIds": images])["id"] as? String)
            let plain = try #require(try await client.createClass(token: seller.token)["id"] as? String)
            let opened = try await client.send(.post, "/v1/chat/rooms", json: ["classId": pictured], token: buyer.token)
            let first = try #require(images.first)
            #expect(try opened.decoded(as: RoomResponse.self).class.imageVariants?.thumb == "/v1/images/\(first)/thumb")
            _ = try await client.send(.post, "/v1/chat/rooms", json: ["classId": plain], token: buyer.token)

            let listed = try await client.send(.get, "/v1/chat/rooms", token: buyer.token)
            let rooms = try listed.decoded(as: TestPage<RoomResponse>.self).items
            let withImage = try #require(rooms.first { $0.class.id == pictured })
            #expect(withImage.class.imageUrl == "/v1/images/\(first)")
            #expect(withImage.class.imageVariants == ImageVariantLinks(imageId: first))
            let withoutImage = try #require(rooms.first { $0.class.id == plain })
            #expect(withoutImage.class.imageUrl == nil && withoutImage.class.imageVariants == nil)
            // Both keys are there, null without an image (the contract's nullable fields).
            let items = try #require(try listed.jsonObject()["items"] as? [[String: Any]])
            let classes = items.compactMap { $0["class"] as? [String: Any] }
            #expect(classes.count == 2 && classes.allSatisfy { $0.keys.contains("imageUrl") && $0.keys.contains("imageVariants") })

            // The seller sees the same image on the same room.
            let sellerRooms = try await client.send(.get, "/v1/chat/rooms", token: seller.token).decoded(as: TestPage<RoomResponse>.self).items
            #expect(sellerRooms.first { $0.class.id == pictured }?.class.imageVariants?.card == "/v1/images/\(first)/card")
        }
    }

    @Test("a socket send is acked once stored, then delivered to the other member and to the sender's other device")
    func sendAndDeliver() async throws {
        try await Self.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let buyerPhone = try await TestSocket.connect(port: scene.port, token: scene.buyer.token, inQuery: true)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "c-1", "text": "안녕하세요, 수업 문의드려요"])
            let ack = try await buyer.next(type: "ack")
            #expect(ack["clientId"] as? String == "c-1")
            #expect(ack["seq"] as? Int == 1)
            #expect(ack["roomId"] as? String == scene.roomId)
            let own = try await buyer.next(type: "message")
            #expect((own["message"] as? [String: Any])?["seq"] as? Int == 1)
            for socket in [seller, buyerPhone] {
                let frame = try await socket.next(type: "message")
                let message = try #require(frame["message"] as? [String: Any])
                #expect(message["text"] as? String == "안녕하세요, 수업 문의드려요")
                #expect(message["senderId"] as? String == scene.buyer.id)
                #expect(message["kind"] as? String == "text")
                #expect(message["id"] as? String == ack["messageId"] as? String)
            }
            for socket in [buyer, buyerPhone, seller] { await socket.close() }
        }
    }

    @Test("a room opened after connecting works on the open connections, for its members only")
    func roomOpenedAfterConnecting() async throws {
        try await Self.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            let outsider = try await TestSocket.connect(port: scene.port, token: scene.outsider.token)
            let (_, roomId) = try await scene.client.openRoom(seller: scene.seller.token, buyer: scene.buyer.token)
            buyer.send(["type": "send", "roomId": roomId, "clientId": "late-1", "text": "새 수업도 문의드려요"])
            #expect(try await buyer.next(type: "ack")["seq"] as? Int == 1)
            let delivered = try await seller.next(type: "message")
            #expect(delivered["roomId"] as? String == roomId)
            outsider.send(["type": "send", "roomId": roomId, "clientId": "late-2", "text": "끼어들기"])
            #expect(try await outsider.next(type: "error")["code"] as? String == "forbidden")
            // The room known since connecting still works on the same connection.
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "early-1", "text": "첫 수업"])
            #expect(try await buyer.next(type: "ack")["roomId"] as? String == scene.roomId)
            for socket in [buyer, seller, outsider] { await socket.close() }
        }
    }

    @Test("a room's first live message on a connection comes after the messages stored before it, when events arrive out of order")
    func firstLiveMessageOutOfOrder() async throws {
        try await TestServer.withEnvironment(.live) { environment, client in
            let seller = try await client.signup(nickname: "선생님")
            let buyer = try await client.signup(nickname: "학생")
            let (_, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            let socket = try await TestSocket.connect(port: try #require(client.port), token: seller.token)
            socket.send(["type": "ping"])
            _ = try await socket.next(type: "pong") // the connection is taken: it knows the room, at seq 0
            // Two messages stored, and only the second one's event arrives (as when another node's event overtakes).
            let outgoing = (1...2).map { OutgoingMessage(roomId: roomId, senderId: buyer.id, clientId: "c\($0)", kind: .text, text: "질문 \($0)", imageId: nil) }
            let results = try await environment.chats.append(outgoing, at: Date())
            guard case .success(.stored(let second)) = results.last else {
                Issue.record("expected the second message stored")
                return
            }
            await environment.chatBus.publish(.message(second, recipients: [seller.id, buyer.id]))
            let frames = [try await socket.next(type: "message"), try await socket.next(type: "message")]
            #expect(frames.map { ($0["message"] as? [String: Any])?["seq"] as? Int } == [1, 2])
            await socket.close()
        }
    }

    @Test("a bus event that arrives after the connection read its room does not overtake a sync: seqs in order, each once")
    func lateEventAndSync() async throws {
        try await TestServer.withEnvironment(.live) { environment, client in
            let seller = try await client.signup(nickname: "선생님")
            let buyer = try await client.signup(nickname: "학생")
            let (_, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            // Four messages stored and acknowledged; their events are held back (none is published yet).
            let outgoing = (1...4).map { OutgoingMessage(roomId: roomId, senderId: seller.id, clientId: "c\($0)", kind: .text, text: "안내 \($0)", imageId: nil) }
            let results = try await environment.chats.append(outgoing, at: Date())
            guard case .success(.stored(let last)) = results.last else {
                Issue.record("expected the fourth message stored")
                return
            }
            let socket = try await TestSocket.connect(port: try #require(client.port), token: buyer.token) // reads the room at seq 4
            // The held-back event of seq 4 arrives now, as when the bus is slower than the connection (another node).
            await environment.chatBus.publish(.message(last, recipients: [seller.id, buyer.id]))
            // The bus delivers in order: once this typing frame is here, the late event has been through the connection.
            await environment.chatBus.publish(.typing(roomId: roomId, userId: seller.id, recipients: [buyer.id]))
            _ = try await socket.next(type: "typing")
            socket.send(["type": "sync", "roomId": roomId, "afterSeq": 1])
            socket.send(["type": "ping"])
            var seqs: [Int] = []
            while true {
                let frame = try await socket.next()
                if frame["type"] as? String == "pong" { break }
                if frame["type"] as? String == "message", let seq = (frame["message"] as? [String: Any])?["seq"] as? Int { seqs.append(seq) }
            }
            #expect(seqs == [2, 3, 4])
            // Live delivery goes on after the synced seqs.
            socket.send(["type": "send", "roomId": roomId, "clientId": "b1", "text": "네"])
            #expect(try await socket.next(type: "message")["message"].flatMap { ($0 as? [String: Any])?["seq"] as? Int } == 5)
            await socket.close()
        }
    }

    @Test("the same clientId sent twice is stored once; the retry is acked with the original")
    func duplicateClientId() async throws {
        try await Self.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "same", "text": "first"])
            let first = try await buyer.next(type: "ack")
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "same", "text": "first (retry)"])
            let second = try await buyer.next(type: "ack")
            #expect(first["messageId"] as? String == second["messageId"] as? String)
            #expect(second["seq"] as? Int == 1)
            #expect(try await seller.messageSeqs(expected: 1) == [1])
            // REST retries answer 200 with the first message.
            let rest = try await scene.client.send(.post, "/v1/chat/rooms/\(scene.roomId)/messages",
                                                   json: ["clientId": "same", "text": "again"], token: scene.buyer.token)
            #expect(rest.status == .ok)
            #expect(try rest.jsonObject()["text"] as? String == "first")
            await buyer.close()
            await seller.close()
        }
    }

    @Test("concurrent sends from several connections keep one gap-free order")
    func concurrentOrder() async throws {
        try await Self.withScene { scene in
            let sockets = [
                try await TestSocket.connect(port: scene.port, token: scene.buyer.token),
                try await TestSocket.connect(port: scene.port, token: scene.buyer.token),
                try await TestSocket.connect(port: scene.port, token: scene.seller.token),
            ]
            let observer = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            for index in 0..<30 {
                sockets[index % 3].send(["type": "send", "roomId": scene.roomId, "clientId": "m-\(index)", "text": "\(index)"])
            }
            var seqs: [Int] = []
            while seqs.count < 30 {
                let frame = try await observer.next(type: "message")
                seqs.append(try #require((frame["message"] as? [String: Any])?["seq"] as? Int))
            }
            #expect(seqs == Array(1...30))
            for socket in sockets + [observer] { await socket.close() }
        }
    }

    @Test("a client that reconnects and syncs gets everything it missed, in order, once")
    func reconnectAndSync() async throws {
        try await Self.withScene { scene in
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            var buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            seller.send(["type": "send", "roomId": scene.roomId, "clientId": "a", "text": "1"])
            _ = try await seller.next(type: "message")
            _ = try await buyer.next(type: "message")
            await buyer.close()
            for index in 2...6 {
                seller.send(["type": "send", "roomId": scene.roomId, "clientId": "m\(index)", "text": "\(index)"])
                _ = try await seller.next(type: "ack")
                // The seller's own copy arrives after the hub has delivered to every connection open at the time.
                _ = try await seller.next(type: "message")
            }
            buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            buyer.send(["type": "sync", "roomId": scene.roomId, "afterSeq": 1])
            #expect(try await buyer.messageSeqs(expected: 5) == [2, 3, 4, 5, 6])
            await buyer.close()
            await seller.close()
        }
    }

    @Test("sync racing new messages: every message exactly once")
    func syncRace() async throws {
        try await Self.withScene { scene in
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            for index in 1...20 {
                seller.send(["type": "send", "roomId": scene.roomId, "clientId": "old-\(index)", "text": "old \(index)"])
            }
            for _ in 1...20 { _ = try await seller.next(type: "ack") }
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            // New messages arrive while the buyer syncs from the start.
            for index in 1...20 {
                seller.send(["type": "send", "roomId": scene.roomId, "clientId": "new-\(index)", "text": "new \(index)"])
                if index == 3 { buyer.send(["type": "sync", "roomId": scene.roomId, "afterSeq": 0]) }
            }
            var seen: [Int] = []
            while seen.count < 40 {
                let frame = try await buyer.next(type: "message")
                seen.append(try #require((frame["message"] as? [String: Any])?["seq"] as? Int))
            }
            let extra = await buyer.drain().filter { $0["type"] as? String == "message" }
            #expect(extra.isEmpty, "nothing delivered twice")
            #expect(seen.sorted() == Array(1...40))
            #expect(Set(seen).count == 40)
            await buyer.close()
            await seller.close()
        }
    }

    @Test("non-members cannot read or write: 403 on REST, an error frame on the socket, nothing delivered")
    func nonMembers() async throws {
        try await Self.withScene { scene in
            let outsider = try await TestSocket.connect(port: scene.port, token: scene.outsider.token)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            outsider.send(["type": "send", "roomId": scene.roomId, "clientId": "x", "text": "spam"])
            let error = try await outsider.next(type: "error")
            #expect(error["code"] as? String == "forbidden")
            #expect(error["clientId"] as? String == "x")
            outsider.send(["type": "sync", "roomId": scene.roomId, "afterSeq": 0])
            #expect(try await outsider.next(type: "error")["code"] as? String == "forbidden")
            #expect(await seller.drain().filter { $0["type"] as? String == "message" }.isEmpty)
            let rest = [
                try await scene.client.send(.get, "/v1/chat/rooms/\(scene.roomId)/messages", token: scene.outsider.token),
                try await scene.client.send(.post, "/v1/chat/rooms/\(scene.roomId)/messages", json: ["clientId": "y", "text": "hi"], token: scene.outsider.token),
                try await scene.client.send(.post, "/v1/chat/rooms/\(scene.roomId)/read", json: ["seq": 1], token: scene.outsider.token),
            ]
            #expect(rest.map(\.status) == [.forbidden, .forbidden, .forbidden])
            await outsider.close()
            await seller.close()
        }
    }

    @Test("bad frames get error frames and the connection stays open; an oversized frame closes it")
    func badFrames() async throws {
        try await Self.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            buyer.sendRaw("not json")
            #expect(try await buyer.next(type: "error")["code"] as? String == "bad_frame")
            buyer.send(["type": "dance"])
            #expect(try await buyer.next(type: "error")["code"] as? String == "unknown_type")
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "c"])
            #expect(try await buyer.next(type: "error")["code"] as? String == "invalid")
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "c", "text": String(repeating: "가", count: 2001)])
            #expect(try await buyer.next(type: "error")["code"] as? String == "invalid")
            buyer.send(["type": "sync", "roomId": "01ZZZZZZZZZZZZZZZZZZZZZZZZ", "afterSeq": 0])
            #expect(try await buyer.next(type: "error")["code"] as? String == "not_found")
            // No stored text may hold the NUL character: the field is named and nothing is stored.
            for (field, frame) in [("clientId", ["clientId": "c\u{0}d", "text": "hi"]), ("text", ["clientId": "e", "text": "a\u{0}b"])] {
                buyer.send(frame.merging(["type": "send", "roomId": scene.roomId]) { old, _ in old })
                let error = try await buyer.next(type: "error")
                #expect(error["code"] as? String == "invalid")
                #expect((error["message"] as? String)?.hasPrefix("\(field): ") == true)
            }
            let history = try await scene.client.send(.get, "/v1/chat/rooms/\(scene.roomId)/messages", token: scene.buyer.token)
            #expect(try #require(try history.jsonObject()["items"] as? [Any]).isEmpty)
            buyer.send(["type": "ping"])
            _ = try await buyer.next(type: "pong")
            buyer.sendRaw(String(repeating: "x", count: 20_000))
            #expect(await buyer.closedByServer())
            await buyer.close()
        }
    }

    @Test("a flood of frames is throttled with error frames, and the server stays up")
    func flood() async throws {
        // A budget of 5 frames, then one every two seconds: all 200 frames pass only if they take 390 s to arrive. The
        // default (60, then 20 a second) passes all 200 once they take 7 s, and on a loaded machine, with the whole
        // suite beside this test, the server read frames slower than 20 a second and refused none. The replies are read
        // until the first refusal, not until a quiet spell: on such a machine the first reply can come after any fixed
        // spell, and the test then saw no frame at all.
        try await Self.withScene({ $0.chatFrameLimit = .init(burst: 5, perSecond: 0.5) }) { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            for _ in 0..<200 { buyer.send(["type": "ping"]) }
            var (pongs, refused) = (0, false)
            while !refused, let frame = try? await buyer.next(timeout: .seconds(30)) {
                refused = frame["code"] as? String == "rate_limited"
                if frame["type"] as? String == "pong" { pongs += 1 }
            }
            #expect(refused)
            #expect(pongs < 200)
            #expect(try await scene.client.send(.get, "/health").status == .ok)
            await buyer.close()
        }
    }

    @Test("unread counts, read receipts and history")
    func readsAndHistory() async throws {
        try await Self.withScene { scene in
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            for index in 1...5 {
                let response = try await scene.client.send(.post, "/v1/chat/rooms/\(scene.roomId)/messages",
                                                           json: ["clientId": "r\(index)", "text": "메시지 \(index)"], token: scene.buyer.token)
                #expect(response.status == .created)
            }
            var room = try #require(try await Self.rooms(of: scene.seller.token, scene).first)
            #expect(room.unreadCount == 5)
            #expect(room.lastMessage?.text == "메시지 5" && room.lastMessage?.seq == 5 && room.lastMessage?.clientId == "r5")
            let buyerRoom = try #require(try await Self.rooms(of: scene.buyer.token, scene).first)
            #expect(buyerRoom.unreadCount == 0, "one's own messages are read")

            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            seller.send(["type": "read", "roomId": scene.roomId, "seq": 3])
            let receipt = try await buyer.next(type: "read")
            #expect(receipt["userId"] as? String == scene.seller.id)
            #expect(receipt["seq"] as? Int == 3)
            room = try #require(try await Self.rooms(of: scene.seller.token, scene).first)
            #expect(room.unreadCount == 2)
            #expect(room.lastReadSeq == 3)
            #expect(try await scene.client.send(.post, "/v1/chat/rooms/\(scene.roomId)/read", json: ["seq": 99], token: scene.seller.token).status == .noContent)
            room = try #require(try await Self.rooms(of: scene.seller.token, scene).first)
            #expect(room.unreadCount == 0)
            #expect(room.lastReadSeq == 5, "never past the last message")

            func history(_ query: String) async throws -> TestPage<MessageResponse> {
                try await scene.client.send(.get, "/v1/chat/rooms/\(scene.roomId)/messages?\(query)", token: scene.seller.token).decoded()
            }
            let page = try await history("limit=2")
            #expect(page.items.map(\.seq) == [5, 4])
            #expect(page.items.allSatisfy { $0.roomId == scene.roomId && $0.senderId == scene.buyer.id && $0.kind == .text && !$0.removed })
            let cursor = try #require(page.nextCursor)
            let next = try await history("limit=2&cursor=\(cursor)")
            #expect(next.items.map(\.seq) == [3, 2])
            let before = try await history("before=2")
            #expect(before.items.map(\.seq) == [1] && before.items.first?.text == "메시지 1" && before.nextCursor == nil)
            await seller.close()
            await buyer.close()
        }
    }

    @Test("presence: counterparts see a user come online with the first connection and go offline with the last")
    func presence() async throws {
        try await Self.withScene { scene in
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            let phone = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let online = try await seller.next(type: "presence")
            #expect(online["userId"] as? String == scene.buyer.id && online["online"] as? Bool == true)
            let laptop = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            #expect(try await laptop.next(type: "presence")["userId"] as? String == scene.seller.id, "a new connection learns who is online")
            await phone.close()
            #expect(await seller.drain().filter { $0["type"] as? String == "presence" }.isEmpty, "still online on the laptop")
            await laptop.close()
            let offline = try await seller.next(type: "presence")
            #expect(offline["userId"] as? String == scene.buyer.id && offline["online"] as? Bool == false)
            await seller.close()
        }
    }

    @Test("typing reaches the other member, rate-limited")
    func typing() async throws {
        try await Self.withScene { scene in
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            for _ in 0..<5 { buyer.send(["type": "typing", "roomId": scene.roomId]) }
            let first = try await seller.next(type: "typing")
            #expect(first["userId"] as? String == scene.buyer.id)
            #expect(await seller.drain().filter { $0["type"] as? String == "typing" }.isEmpty, "the other four are rate-limited")
            await seller.close()
            await buyer.close()
        }
    }

    @Test("no upgrade without a valid token")
    func unauthorizedUpgrade() async throws {
        try await Self.withScene { scene in
            let plain = try await scene.client.send(.get, "/v1/chat/ws")
            #expect(plain.status == .unauthorized)
            await #expect(throws: (any Error).self) {
                _ = try await TestSocket.connect(port: scene.port, token: "forged")
            }
            // A real handshake is refused with the route's own problem, not an empty 400, and the connection ends.
            for (path, status) in [("/v1/chat/ws?token=bogus", 401), ("/v1/chat/ws", 401), ("/v1/no-socket-here?token=\(scene.buyer.token)", 404)] {
                let handshake = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
                let exchange = try await RawConnection.exchange(port: scene.port, request: Array(handshake.utf8), within: .seconds(30))
                #expect(exchange.status == status, "\(path): \(exchange.text.debugDescription)")
                #expect(exchange.headers.contains("content-type: application/problem+json"), "\(path)")
                #expect(exchange.text.contains(#""status":\#(status)"#), "\(path)")
                #expect(!exchange.text.lowercased().contains("upgrade: websocket"), "no upgrade for \(path)")
                #expect(exchange.sawEndOfStream, "\(path)")
            }
        }
    }

    @Test("ending a sign-in closes its sockets (1008, with the reason): by logout, by a reused refresh token; other sign-ins stay")
    func socketsEndWithTheirSession() async throws {
        try await Self.withScene { scene in
            let email = "sockets-\(UUID().uuidString.prefix(8))@example.com"
            _ = try await scene.client.signup(email: email, password: "correct horse", nickname: "접속자")
            func login() async throws -> (token: String, refreshToken: String) {
                let json = try await scene.client.send(.post, "/v1/auth/login", json: ["email": email, "password": "correct horse"]).jsonObject()
                return (try #require(json["token"] as? String), try #require(json["refreshToken"] as? String))
            }
            let phone = try await login()
            let tablet = try await login()
            let laptop = try await login()
            // The phone's bearer token is refreshed: its socket, opened with the older token, still belongs to the sign-in.
            let phoneSocket = try await TestSocket.connect(port: scene.port, token: phone.token)
            let refreshed = try await scene.client.send(.post, "/v1/auth/refresh", json: ["refreshToken": phone.refreshToken]).jsonObject()
            let phoneToken = try #require(refreshed["token"] as? String)
            let tabletSocket = try await TestSocket.connect(port: scene.port, token: tablet.token, inQuery: true)
            let laptopSocket = try await TestSocket.connect(port: scene.port, token: laptop.token)

            #expect(try await scene.client.send(.post, "/v1/auth/logout", token: phoneToken).status == .noContent)
            #expect(await phoneSocket.closedByServer())
            let closed = try #require(await phoneSocket.closeFrame)
            #expect(closed.closeCode == .policyViolation)
            #expect(closed.reason == "signed out")

            // A refresh token presented twice revokes the tablet's sign-in, and its socket with it.
            #expect(try await scene.client.send(.post, "/v1/auth/refresh", json: ["refreshToken": tablet.refreshToken]).status == .ok)
            #expect(try await scene.client.send(.post, "/v1/auth/refresh", json: ["refreshToken": tablet.refreshToken]).status == .unauthorized)
            #expect(await tabletSocket.closedByServer())
            #expect(await tabletSocket.closeFrame?.closeCode == .policyViolation)

            // The laptop's sign-in is another one: its socket stays and still hears pings.
            laptopSocket.send(["type": "ping"])
            _ = try await laptopSocket.next(type: "pong")
            await laptopSocket.close()
        }
    }

    @Test("the sending connection gets each message's ack before the message itself, however the bus races the ack")
    func ackBeforeOwnMessage() async throws {
        try await Self.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let count = 40
            for index in 0..<count {
                buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "order-\(index)", "text": "순서 \(index)"])
            }
            var seen: [String] = []
            while seen.filter({ $0.hasPrefix("message") }).count < count {
                let frame = try await buyer.next()
                switch frame["type"] as? String {
                case "ack": seen.append("ack \(frame["clientId"] as? String ?? "")")
                case "message": seen.append("message \((frame["message"] as? [String: Any])?["clientId"] as? String ?? "")")
                default: break
                }
            }
            for index in 0..<count {
                let ack = seen.firstIndex(of: "ack order-\(index)")
                let message = seen.firstIndex(of: "message order-\(index)")
                #expect(ack != nil && message != nil && ack! < message!, "order-\(index): \(seen)")
            }
            #expect(Set(seen).count == seen.count, "each ack and message once")
            await buyer.close()
        }
    }
}
