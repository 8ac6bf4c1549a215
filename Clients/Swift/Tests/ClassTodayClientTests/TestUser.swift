import ClassTodayClient
import Foundation
import OpenAPIRuntime
import Testing

/// A signed-up user of a test server: its session, its REST client and its profile.
struct TestUser: Sendable {
    /// The user's tokens, shared with its client's middleware.
    let session: SessionStore
    /// The generated REST client, with the bearer-token middleware.
    let client: Client
    /// The user as sign-up returned it.
    let profile: Components.Schemas.User
    /// The user's id.
    var id: String { profile.id }

    /// Signs up a new user on `server`.
    static func signUp(_ nickname: String, on server: ServerProcess) async throws -> TestUser {
        let session = SessionStore()
        let client = ClassTodayAPI.makeClient(serverURL: server.baseURL, session: session)
        let email = "\(nickname.lowercased())-\(UUID().uuidString.prefix(8))@example.com"
        let response = try await client.signup(body: .json(.init(email: email, password: "password-\(nickname)", nickname: nickname)))
        let created = try response.created.body.json
        await session.update(SessionStore.Tokens(created))
        return TestUser(session: session, client: client, profile: created.user)
    }

    /// A chat client for this user.
    func chatClient(on server: ServerProcess, backoff: ReconnectBackoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(500))) -> ChatClient {
        var configuration = ChatClient.Configuration()
        configuration.backoff = backoff
        return ChatClient(serverURL: server.baseURL, session: session, configuration: configuration)
    }
}

/// Runs `body` with a fresh server, and stops the server (removing its data) whatever happens.
func withServer(_ body: (ServerProcess) async throws -> Void) async throws {
    let server = try await ServerProcess.start()
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// Waits up to `timeout` for `condition`, checking every 50 ms.
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// A small valid PNG (8 x 6, greyscale, black).
enum TestImage {
    static let png: [UInt8] = {
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let (width, height) = (8, 6)
        file += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 0, 0, 0, 0])
        let raw = [UInt8](repeating: 0, count: (width + 1) * height)
        var zlib: [UInt8] = [0x78, 0x01, 1, UInt8(raw.count & 0xFF), UInt8(raw.count >> 8), UInt8(~raw.count & 0xFF), UInt8((~raw.count >> 8) & 0xFF)]
        zlib += raw
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += be32(b << 16 | a)
        file += chunk("IDAT", zlib)
        file += chunk("IEND", [])
        return file
    }()

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
