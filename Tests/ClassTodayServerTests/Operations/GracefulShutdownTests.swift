import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
@testable import ClassTodayServer

@Suite("Graceful shutdown")
struct GracefulShutdownTests {
    @Test("shutting down lets an in-flight request finish before the server stops")
    func drainsInFlightRequests() async throws {
        // A high bcrypt cost makes signup take long enough to still be running when shutdown begins.
        let configuration = try TestServer.configuration { $0.bcryptCost = 13 }
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let app = try await buildApplication(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let inFlight = Mutex<Task<TestClient.Response, any Error>?>(nil)
        let started = ContinuousClock.now
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let body = ByteBuffer(string: #"{"email":"drain@example.com","password":"password123","nickname":"drain"}"#)
            let request = Task {
                try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(60))) { other in
                    try await other.post("/v1/auth/signup", headers: [.contentType: "application/json"], body: body)
                }
            }
            inFlight.withLock { $0 = request }
            try await Task.sleep(for: .milliseconds(150))
            // Returning from the test closure triggers the application's graceful shutdown.
        }
        let request = try #require(inFlight.withLock { $0 })
        let response = try await request.value
        #expect(response.status == .created)
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
