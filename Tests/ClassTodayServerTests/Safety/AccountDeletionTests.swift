import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import ClassTodayServer

/// `DELETE /v1/me`: the password again, then every token stops, open matches are cancelled, listings go, the profile
/// is erased and no table keeps the user's email, nickname or location; the counterpart keeps the conversation,
/// shown from "탈퇴한 사용자", in a room that takes no new messages.
@Suite("Account deletion")
struct AccountDeletionTests {
    /// What the deleted user leaves behind and nothing may keep.
    static let email = "Leaving.User@Example.com"
    static let nickname = "떠나는수강생닉"
    static let district = "비밀동네구"
    static let address = "비밀로 77길 7"
    static let lat = 37.512345
    static let lon = 127.054321

    /// How many rows of every table of every column hold `needle` as text (the table and column named). A contentless
    /// FTS5 table holds no text of its own and cannot be read row by row: its shadow tables, which hold the index, are.
    static func tablesHolding(_ needle: String, in database: any SQLDatabase) async throws -> [String] {
        let columns = try await database.rows(database.dialect.backend == .postgres ? """
            SELECT table_name::text AS table_name, column_name::text AS column_name
            FROM information_schema.columns WHERE table_schema = 'public'
            """ : """
            SELECT m.name AS table_name, p.name AS column_name
            FROM sqlite_master m, pragma_table_info(m.name) p
            WHERE m.type = 'table' AND NOT (m.sql LIKE 'CREATE VIRTUAL TABLE%' AND m.sql LIKE '%content = ''''%')
            """)
        var found: [String] = []
        for row in columns {
            let table: String = try row["table_name"]
            let column: String = try row["column_name"]
            let count = try await database.row("""
                SELECT count(*) AS n FROM "\(raw: table)" WHERE CAST("\(raw: column)" AS TEXT) LIKE \("%" + needle + "%")
                """)
            if let count, try count["n"] as Int64 > 0 { found.append("\(table).\(column)") }
        }
        return found
    }

    @Test("the password is asked again: missing 422 naming it, wrong 403, no token 401; nothing is deleted then")
    func reauthentication() async throws {
        try await TestServer.withRouter { client in
            let user = try await client.signup(password: "correct horse")
            let missing = try await client.send(.delete, "/v1/me", json: [:], token: user.token)
            #expect(missing.status == .unprocessableContent)
            #expect(try missing.problemFields() == ["password"])
            let wrong = try await client.send(.delete, "/v1/me", json: ["password": "wrong horse"], token: user.token)
            #expect(wrong.status == .forbidden)
            #expect(try await client.send(.delete, "/v1/me", json: ["password": "correct horse"]).status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/me", json: ["password": 5], token: user.token).status == .badRequest)
            #expect(try await client.send(.get, "/v1/me", token: user.token).status == .ok)
        }
    }

    @Test("a deleted account leaves no email, nickname or location in any table, and the counterpart keeps the room")
    func erasure() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let teacher = try await client.signup(nickname: "선생님")
            let leaving = try await client.signup(email: Self.email, password: "correct horse", nickname: Self.nickname)
            let location: [String: Any] = ["lat": Self.lat, "lon": Self.lon, "keywordLocation": Self.district, "detailLocation": Self.address]
            #expect(try await client.send(.put, "/v1/me/location", json: location, token: leaving.token).status == .ok)
            let photo = try #require(try await client.upload(TestImages.png(width: 9, height: 7), contentType: "image/png", token: leaving.token)
                .jsonObject()["id"] as? String)
            let patch = ["description": "\(Self.nickname)의 소개", "company": Self.district, "profileImageId": photo]
            #expect(try await client.send(.patch, "/v1/me", json: patch, token: leaving.token).status == .ok)

            // Their own listing, at home; a favourite, an alert and a block of their own.
            let own = try #require(try await client.createClass(token: leaving.token, [
                "type": "buy", "name": "수학 과외 구해요", "description": "\(Self.address)에서 \(Self.nickname)",
                "place": Self.address, "location": ["lat": Self.lat, "lon": Self.lon], "keywordLocation": Self.district,
            ])["id"] as? String)
            let (teacherClass, roomId) = try await client.openRoom(seller: teacher.token, buyer: leaving.token)
            #expect(try await client.send(.put, "/v1/classes/\(teacherClass)/favorite", token: leaving.token).status == .noContent)
            let alert = ["lat": Self.lat, "lon": Self.lon, "radius": 1000, "q": Self.district] as [String: Any]
            #expect(try await client.send(.post, "/v1/alerts", json: alert, token: leaving.token).status == .created)
            let stranger = try await client.signup(nickname: "낯선이")
            #expect(try await client.send(.put, "/v1/users/\(stranger.id)/block", token: leaving.token).status == .noContent)

            // A conversation with an image, an accepted match that holds a seat, a completed one reviewed both ways.
            let picture = try #require(try await client.upload(TestImages.png(width: 11, height: 5), contentType: "image/png", token: leaving.token)
                .jsonObject()["id"] as? String)
            for body in [["clientId": "t", "text": "안녕하세요, 수업 문의드려요"], ["clientId": "i", "imageId": picture]] {
                #expect(try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: body, token: leaving.token).status == .created)
            }
            let done = try #require(try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: [:], token: teacher.token)
                .jsonObject()["id"] as? String)
            #expect(try await client.send(.post, "/v1/matches/\(done)/accept", token: leaving.token).status == .ok)
            #expect(try await client.send(.post, "/v1/matches/\(done)/complete", token: teacher.token).status == .ok)
            let review = ["grade": 4.5, "description": "친절한 선생님"] as [String: Any]
            #expect(try await client.send(.post, "/v1/matches/\(done)/reviews", json: review, token: leaving.token).status == .created)
            let held = try #require(try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: [:], token: teacher.token)
                .jsonObject()["id"] as? String)
            #expect(try await client.send(.post, "/v1/matches/\(held)/accept", token: leaving.token).status == .ok)
            #expect(try await client.send(.get, "/v1/classes/\(teacherClass)", token: teacher.token).jsonObject()["status"] as? String == "matched")

            // The scan finds what is there before the deletion.
            let database = environment.storage.database
            #expect(try await Self.tablesHolding(Self.nickname, in: database).contains("users.nickname"))
            #expect(try await Self.tablesHolding(Self.district, in: database).contains("classes.keyword_location"))
            #expect(try await Self.tablesHolding("\(Self.lat)", in: database).contains("alerts.lat"))

            let deleted = try await client.send(.delete, "/v1/me", json: ["password": "correct horse"], token: leaving.token)
            #expect(deleted.status == .noContent)

            // Nothing personal is left anywhere.
            for needle in [Self.email, Self.email.lowercased(), Self.nickname, Self.district, Self.address, "\(Self.lat)", "\(Self.lon)"] {
                #expect(try await Self.tablesHolding(needle, in: database) == [], "\(needle)")
            }

            // The account is gone: tokens, login, profile, listing, photo; the email signs up anew.
            #expect(try await client.send(.get, "/v1/me", token: leaving.token).status == .unauthorized)
            let login = try await client.send(.post, "/v1/auth/login", json: ["email": Self.email, "password": "correct horse"])
            #expect(login.status == .unauthorized)
            #expect(try await client.send(.get, "/v1/users/\(leaving.id)").status == .notFound)
            #expect(try await client.send(.get, "/v1/classes/\(own)", token: teacher.token).status == .notFound)
            #expect(try await client.send(.get, "/v1/images/\(photo)").status == .notFound)
            let again = try await client.signup(email: Self.email, password: "another horse", nickname: "새출발")
            #expect(again.id != leaving.id)

            // The teacher keeps the conversation, from "탈퇴한 사용자", in a room that takes no new messages.
            let rooms = try await client.send(.get, "/v1/chat/rooms", token: teacher.token).jsonObject()
            let room = try #require((rooms["items"] as? [[String: Any]])?.first)
            #expect((room["buyer"] as? [String: Any])?["nickname"] as? String == AccountDeletion.deletedNickname)
            let history = try await client.send(.get, "/v1/chat/rooms/\(roomId)/messages", token: teacher.token).jsonObject()
            let messages = history["items"] as? [[String: Any]] ?? []
            #expect(messages.contains { $0["text"] as? String == "안녕하세요, 수업 문의드려요" })
            let imageURL = try #require(messages.compactMap { $0["imageUrl"] as? String }.first)
            #expect(try await client.send(.get, imageURL, token: teacher.token).status == .ok)
            let answer = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: ["clientId": "x", "text": "네?"], token: teacher.token)
            #expect(answer.status == .forbidden)
            #expect(try answer.problem()["detail"] as? String == "the other member deleted their account")
            #expect(try await client.send(.post, "/v1/chat/rooms/\(roomId)/matches", json: [:], token: teacher.token).status == .forbidden)

            // The held seat came back with the cancelled match; the favourite no longer counts; the review stays.
            let matches = try await client.send(.get, "/v1/me/matches", token: teacher.token).jsonObject()["items"] as? [[String: Any]] ?? []
            #expect(matches.first { $0["id"] as? String == held }?["status"] as? String == "cancelled")
            #expect(matches.first { $0["id"] as? String == done }?["status"] as? String == "completed")
            let listing = try await client.send(.get, "/v1/classes/\(teacherClass)", token: teacher.token).jsonObject()
            #expect(listing["status"] as? String == "open")
            #expect(listing["favoriteCount"] as? Int == 0)
            let reviews = try await client.send(.get, "/v1/users/\(teacher.id)/reviews").jsonObject()["items"] as? [[String: Any]] ?? []
            #expect(reviews.map { $0["reviewerId"] as? String } == [leaving.id])
            // Blocks the deleted user made are gone with them.
            #expect(try await client.send(.put, "/v1/users/\(leaving.id)/block", token: stranger.token).status == .notFound)
        }
    }

    @Test("deleting closes the user's live sockets; the counterpart's stays open and a send there is an error frame")
    func liveSockets() async throws {
        try await ChatTests.withScene { scene in
            let buyer = try await TestSocket.connect(port: scene.port, token: scene.buyer.token)
            let seller = try await TestSocket.connect(port: scene.port, token: scene.seller.token)
            _ = try await seller.next(type: "presence")
            let deleted = try await scene.client.send(.delete, "/v1/me", json: ["password": "correct horse"], token: scene.buyer.token)
            #expect(deleted.status == .noContent)
            #expect(await buyer.closedByServer())
            seller.send(["type": "send", "roomId": scene.roomId, "clientId": "after", "text": "계세요?"])
            let error = try await seller.next(type: "error")
            #expect(error["code"] as? String == "forbidden")
            #expect(error["message"] as? String == "the other member deleted their account")
            await seller.close()
        }
    }

    @Test("an empty DELETE /v1/me (no body, no Content-Type) is a deletion without a password, not a 400")
    func withoutBody() async throws {
        try await TestServer.withRouter { client in
            let user = try await client.signup(password: "correct horse")
            let bare = try await client.send(.delete, "/v1/me", token: user.token)
            #expect(bare.status == .unprocessableContent, "a password account still proves its password")
            #expect(try bare.problemFields() == ["password"])
            #expect(try await client.send(.get, "/v1/me", token: user.token).status == .ok)
        }
    }

    @Test("no file of the data folder keeps the erased account: the WAL is emptied at once and removed at a clean stop, after a socket too")
    func dataFolderBytes() async throws {
        let configuration = try TestServer.configuration(sqliteOnly: true)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let folder = URL(fileURLWithPath: configuration.dataDirectory)
        let needles = [Self.email.lowercased(), Self.nickname, Self.address, "떠나는사람의자기소개문장", "비밀회사이름"]
        /// The files of the data folder whose bytes hold one of the needles, each named with what it holds.
        @Sendable func leaks() throws -> [String] {
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            return try files.filter { !$0.hasDirectoryPath }.flatMap { file in
                let bytes = try Data(contentsOf: file)
                return needles.filter { bytes.range(of: Data($0.utf8)) != nil }.map { "\(file.lastPathComponent): \($0)" }
            }
        }
        let app = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await app.runTest(.live) { client in
            let leaving = try await client.signup(email: Self.email, password: "correct horse", nickname: Self.nickname)
            let profile = ["description": "떠나는사람의자기소개문장", "company": "비밀회사이름"]
            #expect(try await client.send(.patch, "/v1/me", json: profile, token: leaving.token).status == .ok)
            let location: [String: Any] = ["lat": Self.lat, "lon": Self.lon, "detailLocation": Self.address]
            #expect(try await client.send(.put, "/v1/me/location", json: location, token: leaving.token).status == .ok)
            _ = try await client.createClass(token: leaving.token, ["type": "buy", "name": "수학 과외", "description": Self.address])
            let socket = try await TestSocket.connect(port: try #require(client.port), token: leaving.token)
            #expect(try leaks().count >= needles.count, "the scan finds what is there before the deletion")

            #expect(try await client.send(.delete, "/v1/me", json: ["password": "correct horse"], token: leaving.token).status == .noContent)
            #expect(await socket.closedByServer())
            #expect(try leaks() == [], "right after the deletion, with the server running")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("classtoday.sqlite-wal").path),
                "a clean stop checkpoints and removes the WAL, a socket served or not")
        #expect(try leaks() == [])
    }
}
