import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// No stored text can hold the NUL character (PostgreSQL's text refuses it; SQLite's text reads end at it), so a
/// request carrying one, in a JSON body or in a search's district, is a 422 naming the field, on both backends, and stores
/// nothing. API fuzzing found a chat message whose `clientId` held one: its second send was a 500 on SQLite (the
/// stored id read back cut short, so the send was not seen as a repeat), and every send was a 500 on PostgreSQL.
@Suite("The NUL character in requests")
struct NULCharacterTests {
    @Test("a chat message whose clientId or text holds NUL is a 422 naming the field, however often it is sent, and is not stored",
          arguments: [
              ("clientId", ["clientId": "x\u{0}D", "imageId": "\u{80}.JBN\u{4}"]),
              ("clientId", ["clientId": "x\u{0}D", "text": "hi"]),
              ("text", ["clientId": "y", "text": "hi\u{0}there"]),
          ])
    func chatMessage(field: String, body: [String: String]) async throws {
        try await TestServer.withRouter { client in
            let seller = try await client.signup(), buyer = try await client.signup()
            let (_, roomId) = try await client.openRoom(seller: seller.token, buyer: buyer.token)
            for _ in 0..<2 {
                let response = try await client.send(.post, "/v1/chat/rooms/\(roomId)/messages", json: body, token: buyer.token)
                #expect(response.status == .unprocessableContent)
                #expect(try response.problemFields() == [field])
            }
            let history = try await client.send(.get, "/v1/chat/rooms/\(roomId)/messages", token: buyer.token)
            #expect(try #require(try history.jsonObject()["items"] as? [Any]).isEmpty)
        }
    }

    @Test("a NUL in a listed field is named where it is; neither the class nor the nickname is stored")
    func nestedFields() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            for (overrides, field) in [(["name": "기타\u{0}"], "name"), (["days": ["sat", "s\u{0}un"]], "days[1]")] as [([String: Any], String)] {
                let response = try await client.send(.post, "/v1/classes", json: type(of: client).classBody(overrides), token: token)
                #expect(response.status == .unprocessableContent)
                #expect(try response.problemFields() == [field])
            }
            let profile = try await client.send(.patch, "/v1/me", json: ["nickname": "닉\u{0}네임"], token: token)
            #expect(profile.status == .unprocessableContent)
            #expect(try profile.problemFields() == ["nickname"])
            let mine = try await client.send(.get, "/v1/me/classes", token: token)
            #expect(try #require(try mine.jsonObject()["items"] as? [Any]).isEmpty)
        }
    }

    @Test("a search's keywordLocation holding NUL is a 422 naming it; in q, NUL only separates words")
    func searchParameters() async throws {
        try await TestServer.withRouter { client in
            for uri in ["/v1/classes?keywordLocation=%00", "/v1/classes?q=%EC%88%98%ED%95%99&keywordLocation=%EA%B4%80%00"] {
                let response = try await client.send(.get, uri)
                #expect(response.status == .unprocessableContent)
                #expect(try response.problemFields() == ["keywordLocation"])
            }
            for uri in ["/v1/classes?q=a%00b", "/v1/classes?lat=37.5&lon=127&radius=500&q=%EC%88%98%00%ED%95%99"] {
                #expect(try await client.send(.get, uri).status == .ok)
            }
        }
    }
}
