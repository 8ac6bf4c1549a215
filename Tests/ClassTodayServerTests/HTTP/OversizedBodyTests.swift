import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import ClassTodayServer

/// A response sent before its request body has arrived (a 413 for an oversized body, a 401 before an upload is read)
/// must reach every common client promptly: the server closes the connection after it, lingering long enough for a
/// client that sends its whole body before reading (Python's urllib) to finish sending.
@Suite("Oversized bodies")
struct OversizedBodyTests {
    static let twentyMiB = 20 << 20

    @Test("a 20 MiB login body sent whole gets a 413 with Connection: close, then EOF", arguments: [true, false])
    func wholeBody(connectionClose: Bool) async throws {
        try await TestServer.withLiveServer { client in
            let port = try #require(client.port)
            let head = RawConnection.postHead("/v1/auth/login", contentLength: Self.twentyMiB, connectionClose: connectionClose)
            let exchange = try await RawConnection.exchange(
                port: port, sending: [head] + RawConnection.body(bytes: Self.twentyMiB), within: .seconds(60))
            #expect(!exchange.timedOut, "the client could not finish sending, or the server never ended the connection")
            #expect(!exchange.sendFailed)
            #expect(exchange.status == 413)
            #expect(exchange.headers.contains("connection: close"))
            #expect(exchange.headers.contains("content-type: application/problem+json"))
            #expect(exchange.sawEndOfStream)
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }

    @Test("a client that sends part of an oversized body and stops gets the 413, then EOF", arguments: [true, false])
    func partialBody(connectionClose: Bool) async throws {
        try await TestServer.withLiveServer { client in
            let port = try #require(client.port)
            let head = RawConnection.postHead("/v1/auth/login", contentLength: Self.twentyMiB, connectionClose: connectionClose)
            let exchange = try await RawConnection.exchange(port: port, sending: [head] + RawConnection.body(bytes: 2 << 20))
            #expect(exchange.status == 413)
            #expect(exchange.headers.contains("connection: close"))
            #expect(exchange.sawEndOfStream)
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }

    @Test("an upload answered before it is read (401, no token) ends the connection the same way")
    func unreadUpload() async throws {
        try await TestServer.withLiveServer { client in
            let port = try #require(client.port)
            let length = 5 << 20
            let head = ByteBuffer(string: "POST /v1/images HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\nContent-Length: \(length)\r\n\r\n")
            let exchange = try await RawConnection.exchange(port: port, sending: [head] + RawConnection.body(bytes: length))
            #expect(!exchange.timedOut)
            #expect(exchange.status == 401)
            #expect(exchange.headers.contains("connection: close"))
            #expect(exchange.sawEndOfStream)
        }
    }

    @Test("keep-alive still works: requests whose bodies were read leave the connection open")
    func keepAlive() async throws {
        try await TestServer.withLiveServer { client in
            let port = try #require(client.port)
            let login = #"{"email": "nobody@example.com", "password": "wrong password"}"#
            let health = RawConnection.healthRequest
            let pipelined = "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(login.utf8.count)\r\n\r\n\(login)" + health
            // Two responses, then a third request on the same connection once they are in: no time limit to wait out.
            let exchange = try await RawConnection.exchange(port: port, steps: [(pipelined, Self.healthAnswers(1)), (health, Self.healthAnswers(2))])
            #expect(exchange.status == 401)
            #expect(exchange.text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
            #expect(!exchange.text.lowercased().contains("connection: close"))
            #expect(!exchange.sawEndOfStream, "the server closed a keep-alive connection")
            #expect(!exchange.timedOut)
        }
    }

    /// Whether a received text holds `count` answers of `/health`.
    private static func healthAnswers(_ count: Int) -> @Sendable (String) -> Bool {
        { text in RawConnection.healthAnswers(in: text) >= count }
    }
}
