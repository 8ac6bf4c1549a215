import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

/// Banned words: refused in listings and nicknames with a 422 naming the field, masked in chat over REST and the socket,
/// and reread from their file when it changes.
@Suite("Content filter")
struct ContentFilterTests {
    @Test("a class name or description holding a banned word is a 422 naming the field, on create and on update")
    func classes() async throws {
        try await TestServer.withRouter { client in
            let writer = try await client.signup()
            let named = try await client.postClass(token: writer.token, ["name": "시 발 기타 레슨"])
            #expect(named.status == .unprocessableContent)
            #expect(try named.problemFields() == ["name"])
            let described = try await client.postClass(token: writer.token, ["description": "f.u.c.k this guitar"])
            #expect(try described.problemFields() == ["description"])
            let both = try await client.postClass(token: writer.token, ["name": "ㅅㅂ", "description": "병신"])
            #expect(try both.problemFields() == ["name", "description"])

            let created = try await client.createClass(token: writer.token, ["description": "다시 발표하는 시발점 특강, classic guitar"])
            let id = try #require(created["id"] as? String)
            let renamed = try await client.send(.patch, "/v1/classes/\(id)", json: ["name": "씨빨 레슨"], token: writer.token)
            #expect(try renamed.problemFields() == ["name"])
            let redescribed = try await client.send(.patch, "/v1/classes/\(id)", json: ["description": "SH1T"], token: writer.token)
            #expect(try redescribed.problemFields() == ["description"])
            let unchanged = try await client.send(.get, "/v1/classes/\(id)").jsonObject()
            #expect(unchanged["name"] as? String == "기타 왕초보 레슨")
        }
    }

    @Test("a nickname holding a banned word is a 422 naming `nickname`, at signup and in PATCH /v1/me")
    func nicknames() async throws {
        try await TestServer.withRouter { client in
            let signup = try await client.send(.post, "/v1/auth/signup",
                                               json: ["email": "a@example.com", "password": "correct horse", "nickname": "개새끼"])
            #expect(signup.status == .unprocessableContent)
            #expect(try signup.problemFields() == ["nickname"])
            let user = try await client.signup(nickname: "기타선생")
            let patch = try await client.send(.patch, "/v1/me", json: ["nickname": "Fuuuck"], token: user.token)
            #expect(try patch.problemFields() == ["nickname"])
            let me = try await client.send(.get, "/v1/me", token: user.token).jsonObject()
            #expect(me["nickname"] as? String == "기타선생")
        }
    }

    @Test("chat text sent over REST is stored and answered masked, the rest of the text intact")
    func restChatMasked() async throws {
        try await TestServer.withRouter { client in
            let seller = try await client.signup()
            let buyer = try await client.signup()
            let (_, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            let sent = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages",
                                             json: ["clientId": "c-1", "text": "야 시1발 뭐해 😡"], token: buyer.token)
            #expect(sent.status == .created)
            #expect(try sent.jsonObject()["text"] as? String == "야 *1* 뭐해 😡")
            let history = try await client.send(.get, "/v1/chat/rooms/\(roomId)/messages", token: seller.token).jsonObject()
            let items = try #require(history["items"] as? [[String: Any]])
            #expect(items.first?["text"] as? String == "야 *1* 뭐해 😡")
            let clean = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages",
                                              json: ["clientId": "c-2", "text": "수업 언제 시작해요?"], token: buyer.token)
            #expect(try clean.jsonObject()["text"] as? String == "수업 언제 시작해요?")
        }
    }

    @Test("chat text sent over the WebSocket is stored and delivered masked; a time beside it passes unchanged")
    func socketChatMasked() async throws {
        try await ChatTests.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "s-1", "text": "ㅅㅂ what the FUCK 진짜"])
            #expect(try await buyer.next(type: "ack")["seq"] as? Int == 1)
            for socket in [buyer, seller] {
                let frame = try await socket.next(type: "message")
                #expect((frame["message"] as? [String: Any])?["text"] as? String == "** what the **** 진짜")
            }
            let history = try await scene.client.send(.get, "/v1/chat/rooms/\(scene.roomId)/messages", token: scene.seller.token).jsonObject()
            #expect((history["items"] as? [[String: Any]])?.first?["text"] as? String == "** what the **** 진짜")
            buyer.send(["type": "send", "roomId": scene.roomId, "clientId": "s-2", "text": "오후 4시 55분에 만나요"])
            let time = try await seller.next(type: "message")
            #expect((time["message"] as? [String: Any])?["text"] as? String == "오후 4시 55분에 만나요", "digits beside Hangul are no letters")
            for socket in [buyer, seller] { await socket.close() }
        }
    }

    @Test("numbers in Korean text are not read as letters: the class is accepted and chat passes unchanged")
    func numbersInKoreanText() async throws {
        try await TestServer.withRouter { client in
            let seller = try await client.signup()
            let description = KoreanNumberTexts.handWritten.joined(separator: "\n")
            let created = try await client.createClass(token: seller.token,
                                                       ["name": "크래시 테스트 4-55 수학", "description": description])
            #expect(created["name"] as? String == "크래시 테스트 4-55 수학")
            #expect(created["description"] as? String == description)
            let buyer = try await client.signup()
            let (_, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            let lines = KoreanNumberTexts.reported + KoreanNumberTexts.handWritten + KoreanNumberTexts.generated(count: 40, seed: 64)
            for (index, text) in lines.enumerated() {
                let sent = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages",
                                                 json: ["clientId": "n-\(index)", "text": text], token: buyer.token)
                #expect(try sent.jsonObject()["text"] as? String == text)
            }
        }
    }

    @Test("an edited list file takes effect without a restart")
    func reloadThroughTheApplication() async throws {
        let list = try ListFile("사과\n")
        defer { list.remove() }
        try await TestServer.withRouter(configure: {
            $0.bannedWordsPath = list.path
            $0.bannedWordsCheckInterval = .zero
        }) { client in
            let writer = try await client.signup()
            _ = try await client.createClass(token: writer.token, ["name": "망고 수업"])
            try list.write("사과\n망고\n")
            let refused = try await client.postClass(token: writer.token, ["name": "망고 수업"])
            #expect(try refused.problemFields() == ["name"])
        }
    }

    @Test("the file is checked at most once per interval, and a broken edit keeps the last good list")
    func reloadRules() throws {
        let list = try ListFile("사과\n")
        defer { list.remove() }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let hourly = BannedWordsFile(path: list.path, checkInterval: .seconds(3600), logger: logger)
        try hourly.load()
        try list.write("사과\n망고\n")
        #expect(hourly.filter.allows("망고"), "checked again before the interval passed")

        let everyUse = BannedWordsFile(path: list.path, checkInterval: .zero, logger: logger)
        #expect(!everyUse.filter.allows("망고 사과"))
        #expect(!everyUse.filter.allows("망고"))
        try list.write("망고 loudly\n")
        #expect(!everyUse.filter.allows("망고"), "a bad line must not drop the list in force")
        try list.write("포도\n")
        #expect(everyUse.filter.allows("망고") && !everyUse.filter.allows("포도"))
        list.remove()
        #expect(!everyUse.filter.allows("포도"), "a missing file must not drop the list in force")
    }

    @Test("a server does not start without a readable list")
    func missingListRefusesToStart() async throws {
        var configuration = try TestServer.configuration()
        configuration.bannedWordsPath = "/nonexistent/banned-words.txt"
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        await #expect(throws: ConfigurationError.self) {
            _ = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        }
    }
}

/// A temporary banned-words list file.
struct ListFile {
    /// Where the file is.
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("banned-\(UUID().uuidString).txt").path

    init(_ text: String) throws {
        try write(text)
    }

    /// Replaces the file's contents.
    func write(_ text: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Deletes the file.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension TestClientProtocol {
    /// Posts a valid class body with `overrides` merged in, whatever the answer.
    func postClass(token: String, _ overrides: [String: Any]) async throws -> TestResponse {
        try await send(.post, "/v1/classes", json: Self.classBody(overrides), token: token)
    }
}
