import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

/// Reports, the operators' queue and actions, the audit log, and the command that grants the operator role; on
/// SQLite, and on PostgreSQL when `CLASSTODAY_TEST_DATABASE_URL` names a server.
@Suite("Moderation")
struct ModerationTests {
    /// Signs up a user with `email` and makes them an operator through the function `classtoday admin grant` calls.
    static func operatorToken(_ environment: ServerEnvironment, _ client: any TestClientProtocol, email: String = "ops@example.com") async throws -> (token: String, id: String) {
        let user = try await client.signup(email: email, nickname: "운영자")
        #expect(try await environment.setOperator(email: email.uppercased(), true) == user.id)
        return user
    }

    /// The ids of the items of a page answer.
    static func ids(_ response: TestResponse) throws -> [String] {
        try #require(try response.jsonObject()["items"] as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    /// A reason for an action body.
    static func body(_ reason: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        ["reason": reason].merging(extra) { _, new in new }
    }

    @Test("report to suspension: auto-hide after 3 reporters, the queue, message removal, warning, suspension, lift, audit")
    func reportToSuspension() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let writer = try await client.signup(email: "writer@example.com", nickname: "선생")
            let reporters = [try await client.signup(), try await client.signup(), try await client.signup()]
            let ops = try await Self.operatorToken(environment, client)
            let reported = try #require(try await client.createClass(token: writer.token)["id"] as? String)
            let other = try #require(try await client.createClass(token: writer.token, ["name": "수학 과외"])["id"] as? String)
            let search = "/v1/classes?lat=37.4842&lon=126.9297&radius=3000"

            // Three distinct reporters: the third report hides the class for everyone but its writer.
            for (index, reporter) in reporters.enumerated() {
                let filed = try await client.send(.post, "/v1/reports", json: [
                    "targetType": "class", "targetId": reported, "reason": "fraud", "detail": "선입금 요구",
                ], token: reporter.token)
                #expect(filed.status == .created)
                let report = try filed.jsonObject()
                #expect(report["status"] as? String == "open")
                #expect(report["targetUserId"] as? String == writer.id)
                let visible = try Self.ids(try await client.send(.get, search)).contains(reported)
                #expect(visible == (index < 2), "after report \(index + 1)")
            }
            #expect(try await client.send(.get, "/v1/classes/\(reported)").status == .notFound)
            #expect(try await client.send(.get, "/v1/classes/\(reported)", token: reporters[0].token).status == .notFound)
            #expect(try await client.send(.post, "/v1/chat/rooms", json: ["classId": reported], token: reporters[1].token).status == .notFound,
                    "a hidden class takes no new room")
            let own = try await client.send(.get, "/v1/classes/\(reported)", token: writer.token)
            #expect(own.status == .ok)
            #expect(try own.jsonObject()["hidden"] as? Bool == true)
            let asOperator = try await client.send(.get, "/v1/classes/\(reported)", token: ops.token)
            #expect(asOperator.status == .ok, "operators see a hidden class, marked hidden")
            #expect(try asOperator.jsonObject()["hidden"] as? Bool == true)
            #expect(try asOperator.jsonObject()["isFavorite"] as? Bool == false)
            #expect(try Self.ids(try await client.send(.get, "/v1/me/classes", token: writer.token)).contains(reported))
            #expect(try await !Self.ids(client.send(.get, "/v1/users/\(writer.id)/classes")).contains(reported))
            #expect(try await client.send(.post, "/v1/reports", json: [
                "targetType": "class", "targetId": reported, "reason": "spam",
            ], token: reporters[0].token).status == .conflict)

            // A message reported with its text kept as evidence.
            let room = try await client.send(.post, "/v1/chat/rooms", json: ["classId": other], token: reporters[0].token)
            let roomId = try #require(try room.jsonObject()["id"] as? String)
            for (token, text) in [(reporters[0].token, "안녕하세요"), (writer.token, "계좌로 먼저 보내세요"), (reporters[0].token, "앱에서 할게요")] {
                let sent = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": UUID().uuidString, "text": text], token: token)
                #expect(sent.status == .created)
            }
            let history = try await client.send(.get, "/v1/chat/rooms/\(roomId)/messages", token: reporters[0].token).jsonObject()
            let abusive = try #require((history["items"] as? [[String: Any]])?.first { $0["seq"] as? Int == 2 })
            let messageId = try #require(abusive["id"] as? String)
            let messageReport = try await client.send(.post, "/v1/reports", json: [
                "targetType": "message", "targetId": messageId, "reason": "offPlatformPayment",
            ], token: reporters[0].token)
            #expect(messageReport.status == .created)
            let evidence = try #require(try messageReport.jsonObject()["evidence"] as? [String: Any])
            #expect(evidence["text"] as? String == "계좌로 먼저 보내세요")
            #expect(evidence["seq"] as? Int == 2)
            let messageReportId = try #require(try messageReport.jsonObject()["id"] as? String)

            // The queue: oldest first, with ages, content and context; operators only.
            #expect(try await client.send(.get, "/v1/admin/reports").status == .unauthorized)
            #expect(try await client.send(.get, "/v1/admin/reports", token: writer.token).status == .forbidden)
            let queue = try await client.send(.get, "/v1/admin/reports?status=open", token: ops.token)
            #expect(queue.status == .ok)
            let items = try #require(try queue.jsonObject()["items"] as? [[String: Any]])
            #expect(items.count == 4)
            let reports = items.compactMap { $0["report"] as? [String: Any] }
            #expect(reports.compactMap { $0["targetType"] as? String } == ["class", "class", "class", "message"])
            #expect(reports.compactMap { $0["reporterId"] as? String }.prefix(3) == reporters.map(\.id)[...])
            #expect(items.allSatisfy { ($0["ageSeconds"] as? Int).map { $0 >= 0 } == true })
            #expect((items[0]["class"] as? [String: Any])?["hidden"] as? Bool == true)
            #expect((items[0]["targetUser"] as? [String: Any])?["id"] as? String == writer.id)
            #expect((items[3]["messages"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [1, 2, 3])

            // Remove the message: shown as removed with its seq, in history and in the sync replay.
            let removal = try await client.send(.post, "/v1/admin/messages/\(messageId)/remove",
                                                json: Self.body("외부 결제 유도", ["reportId": messageReportId]), token: ops.token)
            #expect(removal.status == .ok)
            #expect(try removal.jsonObject()["resolvedReports"] as? Int == 1)
            let after = try await client.send(.get, "/v1/chat/rooms/\(roomId)/messages", token: writer.token).jsonObject()
            let removed = try #require((after["items"] as? [[String: Any]])?.first { $0["id"] as? String == messageId })
            #expect(removed["removed"] as? Bool == true)
            #expect(removed["seq"] as? Int == 2)
            #expect(removed["text"] as? String == ModerationRules.removedMessageText)
            let replay = try await environment.chats.messages(roomId: roomId, afterSeq: 0, limit: 10)
            #expect(replay.map(\.seq) == [1, 2, 3])
            #expect(replay.map(\.removed) == [false, true, false])

            // Warn, then suspend: the writer's token fails and their listings leave search; lift it.
            #expect(try await client.send(.post, "/v1/admin/users/\(writer.id)/warn", json: Self.body("외부 결제 유도 1회"), token: ops.token).status == .ok)
            let warned = try await client.send(.get, "/v1/me", token: writer.token).jsonObject()
            let warnings = try #require(warned["warnings"] as? [String: Any])
            #expect(warnings["count"] as? Int == 1)
            #expect(warnings["lastReason"] as? String == "외부 결제 유도 1회")
            #expect(try Self.ids(try await client.send(.get, search)).contains(other))
            let until = RFC3339.format(Date().addingTimeInterval(86_400))
            let suspension = try await client.send(.post, "/v1/admin/users/\(writer.id)/suspend",
                                                   json: Self.body("반복 위반", ["until": until, "reportId": try #require(reports[0]["id"] as? String)]),
                                                   token: ops.token)
            #expect(suspension.status == .ok)
            #expect(try suspension.jsonObject()["resolvedReports"] as? Int == 3)
            let refused = try await client.send(.get, "/v1/me", token: writer.token)
            #expect(refused.status == .unauthorized)
            #expect((try refused.problem()["detail"] as? String)?.contains("suspended") == true)
            #expect(try await !Self.ids(client.send(.get, search)).contains(other))
            #expect(try await client.send(.get, "/v1/classes/\(other)").status == .notFound)
            #expect(try await client.send(.post, "/v1/admin/users/\(writer.id)/unsuspend", json: Self.body("소명 확인"), token: ops.token).status == .ok)
            #expect(try await client.send(.get, "/v1/me", token: writer.token).status == .ok)
            #expect(try Self.ids(try await client.send(.get, search)).contains(other))
            #expect(try Self.ids(try await client.send(.get, "/v1/admin/reports", token: ops.token)).isEmpty)

            // The audit log, newest first, with operator and reason.
            let audit = try #require(try await client.send(.get, "/v1/admin/audit", token: ops.token).jsonObject()["items"] as? [[String: Any]])
            #expect(audit.compactMap { $0["action"] as? String } == [
                "unsuspendUser", "suspendUser", "warnUser", "removeMessage", "hideClass", "grantOperator",
            ])
            #expect(audit.map { $0["operatorId"] as? String } == [ops.id, ops.id, ops.id, ops.id, nil, nil])
            #expect(audit.compactMap { $0["reason"] as? String }.prefix(4) == ["소명 확인", "반복 위반", "외부 결제 유도 1회", "외부 결제 유도"])
            #expect(audit[1]["until"] as? String == until)
            #expect(audit[4]["targetId"] as? String == reported)

            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains("classtoday_moderation_oldest_open_report_age_seconds 0"))
        }
    }

    @Test("reports: a bad reason is a 422 naming reason; self-reports are 422s; unknown targets 404; a second open report 409")
    func reportRules() async throws {
        try await TestServer.withRouter { client in
            let writer = try await client.signup()
            let reporter = try await client.signup()
            let classId = try #require(try await client.createClass(token: writer.token)["id"] as? String)
            let badReason = try await client.send(.post, "/v1/reports", json: ["targetType": "class", "targetId": classId, "reason": "rude"], token: reporter.token)
            #expect(badReason.status == .unprocessableContent)
            #expect(try badReason.problemFields() == ["reason"])
            let longDetail = try await client.send(.post, "/v1/reports", json: [
                "targetType": "user", "targetId": writer.id, "reason": "other", "detail": String(repeating: "가", count: 1001),
            ], token: reporter.token)
            #expect(try longDetail.problemFields() == ["detail"])
            for (type, id) in [("class", classId), ("user", writer.id)] {
                let own = try await client.send(.post, "/v1/reports", json: ["targetType": type, "targetId": id, "reason": "spam"], token: writer.token)
                #expect(own.status == .unprocessableContent)
                #expect(try own.problemFields() == ["targetId"])
            }
            for type in ["class", "user", "message"] {
                let missing = try await client.send(.post, "/v1/reports", json: ["targetType": type, "targetId": "nope", "reason": "spam"], token: reporter.token)
                #expect(missing.status == .notFound)
            }
            #expect(try await client.send(.post, "/v1/reports", json: ["targetType": "user", "targetId": writer.id, "reason": "harassment"]).status == .unauthorized)
            let first = try await client.send(.post, "/v1/reports", json: ["targetType": "user", "targetId": writer.id, "reason": "harassment"], token: reporter.token)
            #expect(first.status == .created)
            let second = try await client.send(.post, "/v1/reports", json: ["targetType": "user", "targetId": writer.id, "reason": "spam"], token: reporter.token)
            #expect(second.status == .conflict)
            #expect(second.headers[.contentType] == "application/problem+json")
        }
    }

    @Test("admin routes: 401 without a token, 403 for users; grant makes an operator, revoke undoes it; an unknown email is not found")
    func operatorRole() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let user = try await client.signup(email: "someone@example.com")
            let paths = ["/v1/admin/reports", "/v1/admin/audit"]
            for path in paths {
                #expect(try await client.send(.get, path).status == .unauthorized)
                #expect(try await client.send(.get, path, token: user.token).status == .forbidden)
            }
            #expect(try await client.send(.post, "/v1/admin/users/\(user.id)/warn", json: Self.body("x"), token: user.token).status == .forbidden)
            #expect(try await environment.setOperator(email: "Someone@Example.com", true) == user.id)
            for path in paths {
                #expect(try await client.send(.get, path, token: user.token).status == .ok)
            }
            let noReason = try await client.send(.post, "/v1/admin/users/\(user.id)/warn", json: ["reason": " "], token: user.token)
            #expect(try noReason.problemFields() == ["reason"])
            _ = try await environment.setOperator(email: "someone@example.com", false)
            #expect(try await client.send(.get, "/v1/admin/reports", token: user.token).status == .forbidden)
            await #expect(throws: DomainError.notFound("user")) { try await environment.setOperator(email: "nobody@example.com", true) }
        }
    }

    @Test("live sockets: a removed message reaches both members as a removed frame; a suspension closes the user's sockets")
    func liveSockets() async throws {
        try await TestServer.withEnvironment(.live) { environment, client in
            let ops = try await Self.operatorToken(environment, client)
            let seller = try await client.signup(nickname: "선생님")
            let buyer = try await client.signup(nickname: "학생")
            let (_, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            let port = try #require(client.port)
            let buyerSocket = try await TestSocket.connect(port: port, token: buyer.token)
            let sellerSocket = try await TestSocket.connect(port: port, token: seller.token)
            buyerSocket.send(["type": "send", "roomId": roomId, "clientId": "bad", "text": "계좌로 먼저 입금해 주세요"])
            let messageId = try #require(try await buyerSocket.next(type: "ack")["messageId"] as? String)
            _ = try await sellerSocket.next(type: "message")

            let removal = try await client.send(.post, "/v1/admin/messages/\(messageId)/remove", json: Self.body("외부 결제 유도"), token: ops.token)
            #expect(removal.status == .ok)
            for socket in [buyerSocket, sellerSocket] {
                let frame = try await socket.next(type: "removed")
                #expect(frame["roomId"] as? String == roomId && frame["messageId"] as? String == messageId && frame["seq"] as? Int == 1)
            }
            // Removing it again changes nothing and tells nobody.
            #expect(try await client.send(.post, "/v1/admin/messages/\(messageId)/remove", json: Self.body("다시"), token: ops.token).status == .ok)
            #expect(await sellerSocket.drain().allSatisfy { $0["type"] as? String != "removed" })

            let suspension = try await client.send(.post, "/v1/admin/users/\(buyer.id)/suspend", json: Self.body("사기 의심"), token: ops.token)
            #expect(suspension.status == .ok)
            #expect(await buyerSocket.closedByServer())
            #expect(await !sellerSocket.closedByServer(within: .milliseconds(300)))
            await sellerSocket.close()
        }
    }
}
