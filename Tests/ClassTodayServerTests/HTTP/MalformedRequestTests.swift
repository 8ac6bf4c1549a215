import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// Requests the HTTP/1 parser rejects get a 400 and the connection ends at once, whether the bad request is the
/// first on its connection, follows a good one, or breaks its chunked body; the server keeps serving.
@Suite("Malformed requests")
struct MalformedRequestTests {
    /// A request that is not valid HTTP/1.1.
    struct Case: Sendable, CustomTestStringConvertible {
        /// What is wrong with it.
        let name: String
        /// The bytes on the wire.
        let request: String
        /// Whether the 400 carries a problem document (Hummingbird's own answer to a later bad request does not).
        var answersWithProblem = true

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "NUL in a header value", request: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u{0}b\r\n\r\n"),
        Case(name: "\\x01 in a header value", request: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u{1}b\r\n\r\n"),
        Case(name: "a space in a header name", request: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX A: b\r\n\r\n"),
        Case(name: "a garbage request line", request: "this is not http at all\r\n\r\n"),
        Case(name: "HTTP/9.9", request: "GET /health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n"),
        Case(name: "Content-Length: abc", request: "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n"),
        Case(name: "two conflicting Content-Lengths",
             request: "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"),
        Case(name: "a bad chunk size",
             request: "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        Case(name: "a bad header after a good request on a kept-alive connection",
             request: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\nX-A: a\u{1}b\r\n\r\n",
             answersWithProblem: false),
    ]

    @Test("a request the parser rejects gets a 400 with Connection: close, then EOF", arguments: cases)
    func rejected(_ malformed: Case) async throws {
        try await TestServer.withLiveServer { client in
            let port = try #require(client.port)
            let exchange = try await RawConnection.exchange(port: port, request: Array(malformed.request.utf8), within: .seconds(30))
            let answer = try #require(exchange.text.range(of: "HTTP/1.1 400 Bad Request\r\n").map { exchange.text[$0.lowerBound...] },
                                      "no 400 in \(exchange.text.debugDescription)")
            let head = (answer.components(separatedBy: "\r\n\r\n").first ?? "").lowercased()
            #expect(head.contains("connection: close"))
            if malformed.answersWithProblem {
                #expect(head.contains("content-type: application/problem+json"))
                #expect(answer.contains(#""status":400"#))
            }
            #expect(exchange.sawEndOfStream, "the server never ended the connection")
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }
}
