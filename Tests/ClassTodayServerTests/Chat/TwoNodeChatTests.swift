import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import ClassTodayServer

/// Two server nodes on their own loopback ports sharing one PostgreSQL database: chat crosses between them over
/// the LISTEN/NOTIFY bus. Runs when `CLASSTODAY_TEST_DATABASE_URL` names a PostgreSQL server.
@Suite("Chat across two nodes", .postgresOnly)
struct TwoNodeChatTests {
    /// Starts two live nodes over the same fresh database and runs `body` with a client of each.
    static func withTwoNodes(
        _ body: @Sendable (any TestClientProtocol, any TestClientProtocol, _ database: String) async throws -> Void
    ) async throws {
        try await TestServer.withTwoNodes { a, b, first in
            try await body(a, b, try #require(first.databaseURL.flatMap { URL(string: $0)?.lastPathComponent }))
        }
    }

    @Test("a message sent on node A reaches node B; a client reconnecting to B syncs what it missed, once, in order")
    func crossNode() async throws {
        try await Self.withTwoNodes { a, b, _ in
            let seller = try await a.signup(nickname: "선생님")
            let buyer = try await b.signup(nickname: "학생")
            let classId = try #require(try await a.createClass(token: seller.token)["id"] as? String)
            let room = try await b.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer.token)
            let roomId = try #require(try room.jsonObject()["id"] as? String)

            let sellerOnA = try await TestSocket.connect(port: try #require(a.port), token: seller.token)
            var buyerOnB = try await TestSocket.connect(port: try #require(b.port), token: buyer.token)
            // Presence crosses nodes too: the seller hears that the buyer came online on the other node.
            let presence = try await sellerOnA.next(type: "presence")
            #expect(presence["userId"] as? String == buyer.id && presence["online"] as? Bool == true)
            sellerOnA.send(["type": "send", "roomId": roomId, "clientId": "m1", "text": "안녕하세요"])
            #expect(try await sellerOnA.next(type: "ack")["seq"] as? Int == 1)
            _ = try await sellerOnA.next(type: "message")  // the sender's own copy
            let delivered = try await buyerOnB.next(type: "message")
            #expect((delivered["message"] as? [String: Any])?["text"] as? String == "안녕하세요")

            // B answers; A hears it.
            buyerOnB.send(["type": "send", "roomId": roomId, "clientId": "r1", "text": "네, 반갑습니다"])
            let answer = try await sellerOnA.next(type: "message")
            let answered = try #require(answer["message"] as? [String: Any])
            #expect(answered["seq"] as? Int == 2 && answered["text"] as? String == "네, 반갑습니다")

            // The buyer goes away; the seller keeps writing on A; the buyer comes back to B and syncs.
            await buyerOnB.close()
            for index in 3...7 {
                sellerOnA.send(["type": "send", "roomId": roomId, "clientId": "m\(index)", "text": "\(index)"])
                _ = try await sellerOnA.next(type: "ack")
            }
            buyerOnB = try await TestSocket.connect(port: try #require(b.port), token: buyer.token)
            buyerOnB.send(["type": "sync", "roomId": roomId, "afterSeq": 2])
            #expect(try await buyerOnB.messageSeqs(expected: 5, window: .milliseconds(800)) == [3, 4, 5, 6, 7])
            await buyerOnB.close()
            await sellerOnA.close()
        }
    }

    @Test("a member connecting to the other node right after messages were acked, and syncing, sees them in order, each once")
    func connectAndSyncRightAfterSends() async throws {
        try await Self.withTwoNodes { a, b, _ in
            let seller = try await a.signup()
            let buyer = try await b.signup()
            let sellerOnA = try await TestSocket.connect(port: try #require(a.port), token: seller.token)
            // The race depends on the bus timing; a few rounds make it likely on the code that lost it.
            for round in 0..<4 {
                let classId = try #require(try await a.createClass(token: seller.token)["id"] as? String)
                let room = try await b.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer.token)
                let roomId = try #require(try room.jsonObject()["id"] as? String)
                for index in 1...5 {
                    sellerOnA.send(["type": "send", "roomId": roomId, "clientId": "r\(round)-\(index)", "text": "\(index)"])
                    _ = try await sellerOnA.next(type: "ack")
                }
                let buyerOnB = try await TestSocket.connect(port: try #require(b.port), token: buyer.token)
                buyerOnB.send(["type": "sync", "roomId": roomId, "afterSeq": 1])
                #expect(try await buyerOnB.messageSeqs(expected: 4, window: .milliseconds(500)) == [2, 3, 4, 5], "round \(round)")
                await buyerOnB.close()
            }
            await sellerOnA.close()
        }
    }

    @Test("concurrent senders on two nodes get one gap-free sequence, duplicates stored once")
    func concurrentSenders() async throws {
        try await Self.withTwoNodes { a, b, _ in
            let seller = try await a.signup()
            let buyer = try await b.signup()
            let classId = try #require(try await a.createClass(token: seller.token)["id"] as? String)
            let room = try await b.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer.token)
            let roomId = try #require(try room.jsonObject()["id"] as? String)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let (client, token) = index % 2 == 0 ? (a, seller.token) : (b, buyer.token)
                    group.addTask {
                        // Every message is sent twice, through both nodes: stored once.
                        for node in [client, index % 2 == 0 ? b : a] {
                            let response = try await node.send(.post, "/v1/chat/rooms/\(roomId)/messages",
                                                               json: ["clientId": "c\(index)", "text": "\(index)"], token: token)
                            #expect(response.status == .created || response.status == .ok)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let history = try await a.send(.get, "/v1/chat/rooms/\(roomId)/messages?limit=100", token: seller.token).jsonObject()
            let seqs = (history["items"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }.sorted()
            #expect(seqs == Array(1...40))
        }
    }

    @Test("a node whose listener connection is cut reconnects and delivers what was sent meanwhile, once, in order")
    func listenerReconnects() async throws {
        try await Self.withTwoNodes { a, b, database in
            let seller = try await a.signup()
            let buyer = try await b.signup()
            let classId = try #require(try await a.createClass(token: seller.token)["id"] as? String)
            let room = try await b.send(.post, "/v1/chat/rooms", json: ["classId": classId], token: buyer.token)
            let roomId = try #require(try room.jsonObject()["id"] as? String)
            let buyerOnB = try await TestSocket.connect(port: try #require(b.port), token: buyer.token)
            try Self.terminateListeners(of: database)
            for index in 1...3 {
                let sent = try await a.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": "m\(index)", "text": "\(index)"],
                                            token: seller.token)
                #expect(sent.status == .created)
            }
            var seqs: [Int] = []
            while seqs.count < 3 {
                let frame = try await buyerOnB.next(type: "message", timeout: .seconds(10))
                seqs.append((frame["message"] as? [String: Any])?["seq"] as? Int ?? -1)
            }
            #expect(seqs == [1, 2, 3])
            #expect(await buyerOnB.drain().filter { $0["type"] as? String == "message" }.isEmpty, "each message once")
            await buyerOnB.close()
        }
    }

    /// Cuts the listening connections to `database`, as a network failure or a database restart would.
    static func terminateListeners(of database: String) throws {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", try #require(PostgresTestDatabase.serverURL), "-q", "-v", "ON_ERROR_STOP=1", "-c",
                          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND datname = '\(database)'"]
        try psql.run()
        psql.waitUntilExit()
        try #require(psql.terminationStatus == 0)
    }

    @Test("an account deleted through node A has its sockets on node B closed, and its counterpart's sends there refused")
    func deletionClosesSocketsEverywhere() async throws {
        try await Self.withTwoNodes { a, b, _ in
            let seller = try await a.signup(nickname: "선생님")
            let buyer = try await b.signup(nickname: "학생")
            let (_, roomId) = try await a.openRoom(seller: seller.token, buyer: buyer.token)
            let buyerOnB = try await TestSocket.connect(port: try #require(b.port), token: buyer.token)
            let sellerOnB = try await TestSocket.connect(port: try #require(b.port), token: seller.token)
            _ = try await sellerOnB.next(type: "presence")
            #expect(try await a.send(.delete, "/v1/me", json: ["password": "correct horse"], token: buyer.token).status == .noContent)
            #expect(await buyerOnB.closedByServer())
            sellerOnB.send(["type": "send", "roomId": roomId, "clientId": "after", "text": "계세요?"])
            #expect(try await sellerOnB.next(type: "error")["code"] as? String == "forbidden")
            await sellerOnB.close()
        }
    }
}
