import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@Suite("JSON request bodies")
struct JSONBodyTests {
    /// A signup body for a fresh email.
    private static func signupJSON(_ email: String = "user-\(UUID().uuidString.prefix(8))@example.com") -> String {
        #"{"email": "\#(email)", "password": "password123", "nickname": "테스터"}"#
    }

    private static func post(
        _ client: some TestClientProtocol, _ path: String, _ body: String?, contentType: String?, token: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let contentType { headers[.contentType] = contentType }
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: path, method: .post, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    @Test("a JSON route answers 415 to bodies of another media type, and stores nothing",
          arguments: ["text/plain", "application/xml", "image/png", "application/x-www-form-urlencoded",
                      "multipart/form-data; boundary=x", "application/json; charset=iso-8859-1", "application/jsonx",
                      "json", "application/+json"])
    func otherMediaTypes(contentType: String) async throws {
        try await TestServer.withRouter { client in
            let email = "media-\(UUID().uuidString.prefix(8))@example.com"
            let response = try await Self.post(client, "/v1/auth/signup", Self.signupJSON(email), contentType: contentType)
            #expect(response.status == .unsupportedMediaType)
            #expect(try response.problem()["type"] as? String == "https://classtoday.app/problems/unsupported-media-type")
            let login = try await client.send(.post, "/v1/auth/login", json: ["email": email, "password": "password123"])
            #expect(login.status == .unauthorized)
        }
    }

    @Test("application/json and application/*+json are read, in any case and with parameters",
          arguments: ["application/json", "APPLICATION/JSON", "application/json; charset=utf-8", "Application/Json;Charset=\"UTF-8\"",
                      "application/problem+json", "application/vnd.classtoday+json; version=1"])
    func jsonMediaTypes(contentType: String) async throws {
        try await TestServer.withRouter { client in
            let response = try await Self.post(client, "/v1/auth/signup", Self.signupJSON(), contentType: contentType)
            #expect(response.status == .created)
        }
    }

    @Test("a body without a Content-Type is 415; no body and no Content-Type is 400")
    func missingContentType() async throws {
        try await TestServer.withRouter { client in
            let withBody = try await Self.post(client, "/v1/auth/signup", Self.signupJSON(), contentType: nil)
            #expect(withBody.status == .unsupportedMediaType)
            _ = try withBody.problem()
            let withoutBody = try await Self.post(client, "/v1/auth/signup", nil, contentType: nil)
            #expect(withoutBody.status == .badRequest)
            _ = try withoutBody.problem()
        }
    }

    @Test("routes without a body need no Content-Type")
    func bodilessRoutes() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let classId = try #require(try await client.createClass(token: token)["id"] as? String)
            let favorite = try await client.execute(uri: "/v1/classes/\(classId)/favorite", method: .put,
                                                    headers: [.authorization: "Bearer \(token)"])
            #expect(favorite.status == .noContent)
            let logout = try await Self.post(client, "/v1/auth/logout", nil, contentType: nil, token: token)
            #expect(logout.status == .noContent)
        }
    }

    @Test("text that is not strict RFC 8259 JSON is a 400 that says where",
          arguments: [
              #"{"email":"a@b.co","password":"password123","nickname":"x",}"#, // trailing comma in an object
              #"{"email":"a@b.co","password":"password123","nickname":"x","days":["mon",]}"#, // and in an array
              #"{"email":"a@b.co","password":"password123","nickname":"x","n":01}"#, // leading zero
              #"{"email":"a@b.co","password":"password123","nickname":"x","n":NaN}"#,
              #"{'email':'a@b.co'}"#,
              #"{"email":"a@b.co"} {}"#,
              #"{/* comment */"email":"a@b.co"}"#,
              "{\"email\":\"a@b.co\",\"nickname\":\"tab\there\"}", // an unescaped control character
              #"{"email":"a@b.co","nickname":"\ud800"}"#, // a lone surrogate
              #"{"email":"a@b.co","email":"b@b.co","password":"password123","nickname":"x"}"#, // a repeated member
              "\u{FEFF}{\"email\":\"a@b.co\"}", // a byte order mark
              String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
              "",
          ])
    func invalidJSON(body: String) async throws {
        try await TestServer.withRouter { client in
            let response = try await Self.post(client, "/v1/auth/signup", body, contentType: "application/json")
            #expect(response.status == .badRequest)
            let detail = try #require(try response.problem()["detail"] as? String)
            #expect(detail.hasPrefix("the body is not valid JSON: "))
            #expect(detail.contains("at byte "))
        }
    }

    @Test("bytes that are not UTF-8 are a 400")
    func invalidUTF8() async throws {
        try await TestServer.withRouter { client in
            let prefix = #"{"email":"a@b.co","password":"password123","nickname":""#
            var body = ByteBuffer(string: prefix)
            body.writeBytes([0xC3, 0x28])
            body.writeString(#""}"#)
            let response = try await client.execute(uri: "/v1/auth/signup", method: .post,
                                                    headers: [.contentType: "application/json"], body: body)
            #expect(response.status == .badRequest)
            let stringStart = prefix.utf8.count - 1
            #expect(try response.problem()["detail"] as? String == "the body is not valid JSON: a string is not valid UTF-8 at byte \(stringStart)")
        }
    }

    @Test("a value of the wrong type, or a number its field cannot hold, is a 400 naming the field",
          arguments: [
              (#""price": 1e400"#, "price", "is out of range"),
              (#""price": 99999999999999999999"#, "price", "is out of range"),
              (#""price": 1.5"#, "price", "must be a whole number"),
              (#""price": "x""#, "price", "must be a whole number, not a string"),
              (#""capacity": true"#, "capacity", "must be a whole number, not a boolean"),
              (#""location": {"lat": 1e400, "lon": 1}"#, "location.lat", "is out of range"),
              (#""location": {"lat": "north", "lon": 1}"#, "location.lat", "must be a number, not a string"),
              (#""days": ["mon", 2]"#, "days[1]", "must be a string, not a number"),
              (#""name": ["x"]"#, "name", "must be a string, not an array"),
          ])
    func wrongTypes(member: String, field: String, message: String) async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let required = member.hasPrefix(#""name""#) ? #""type": "sell""# : #""type": "sell", "name": "기타 레슨""#
            let body = "{\(required), \(member)}"
            let response = try await Self.post(client, "/v1/classes", body, contentType: "application/json", token: token)
            #expect(response.status == .badRequest)
            let problem = try response.problem()
            let errors = try #require(problem["errors"] as? [[String: String]])
            #expect(errors == [["field": field, "message": message]])
            #expect(problem["detail"] as? String == "field '\(field)' \(message)")
        }
    }

    @Test("whole numbers may be written with an exponent or a zero fraction, as JSON Schema's integer allows")
    func integralNumbers() async throws {
        try await TestServer.withRouter { client in
            let (token, _) = try await client.signup()
            let body = #"{"type": "sell", "name": "기타 레슨", "price": 2e4, "capacity": 3.0}"#
            let response = try await Self.post(client, "/v1/classes", body, contentType: "application/json", token: token)
            #expect(response.status == .created)
            let json = try response.jsonObject()
            #expect(json["price"] as? Int == 20000)
            #expect(json["capacity"] as? Int == 3)
        }
    }
}
