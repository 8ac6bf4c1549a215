import ClassTodayCore
import Foundation
import GRDB
import Logging
import NIOCore
import NIOPosix
import Testing
@testable import ClassTodayServer

/// Reads asked by a request's handler, which runs on an event loop (``EventLoopExecutor``): SQLite serves them on that
/// loop's own thread. Nothing may wait for ever there: a read nested in another's body, a write inside a read, many
/// reads of one loop at once, a closed pool; and the listings' points are never read whole there.
@Suite("SQLite reads on an event loop")
struct SQLiteEventLoopReadTests {
    /// Runs `body` as a handler does, on `group`'s one loop, with a fresh migrated SQLite store; fails after 30 s.
    func onEventLoop(_ body: @escaping @Sendable (SQLiteStore, any EventLoop) async throws -> Void) async throws {
        let configuration = try TestServer.configuration(sqliteOnly: true)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        guard case .sqlite(let store) = environment.storage else { return }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        defer { Task { try? await group.shutdownGracefully() } }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await withTaskExecutorPreference(EventLoopExecutor(eventLoop: loop)) { try await body(store, loop) }
            }
            tasks.addTask {
                try await Task.sleep(for: .seconds(30))
                Issue.record("the reads did not finish within 30 s")
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    @Test("a handler's read runs on its loop's thread; a nested read and a write inside it finish")
    func nested() async throws {
        try await onEventLoop { store, loop in
            let database = store.database
            let (onLoop, nested, written) = try await database.read { db in
                let onLoop = loop.inEventLoop
                let before: Int = try await db.row("SELECT COUNT(*) AS users FROM users")?["users"] ?? -1
                #expect(before == 0)
                let nested: Int = try await database.read { inner in try await inner.row("SELECT 41 + 1 AS answer")?["answer"] ?? 0 }
                try await database.transaction { writer in
                    try await SQLUserRepository.insert(User(id: "u1", email: "u1@example.com", nickname: "n", createdAt: Date()),
                                                       passwordHash: "h", writer)
                }
                let written: Int = try await db.row("SELECT COUNT(*) AS users FROM users")?["users"] ?? -1
                return (onLoop, nested, written)
            }
            #expect(onLoop)
            #expect(nested == 42)
            // The read's snapshot was taken before the write committed.
            #expect(written == 0)
            let after: Int = try await database.row("SELECT COUNT(*) AS users FROM users")?["users"] ?? -1
            #expect(after == 1)
        }
    }

    @Test("many reads of one loop at once all finish, each with its own answer")
    func concurrent() async throws {
        try await onEventLoop { store, _ in
            let database = store.database
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for value in 0..<64 {
                    group.addTask { try await database.read { db in try await db.row("SELECT \(value) AS value")?["value"] ?? -1 } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.sorted() == Array(0..<64))
        }
    }

    @Test("a read of a closed pool fails on the loop instead of waiting")
    func closedPool() async throws {
        try await onEventLoop { store, _ in
            try store.writer.close()
            await #expect(throws: (any Error).self) {
                try await store.database.read { db in try await db.rows("SELECT 1 AS one") }
            }
        }
    }

    @Test("unread points are never read whole on a loop: the search walks with SQL and the read is asked for")
    func pointsNotReadOnLoop() async throws {
        try await onEventLoop { store, _ in
            let onLoop = try await store.database.read { db in try await db.classPoints?.points(db) }
            #expect(onLoop == nil)
            var wanted = store.classPoints.wholeReadsWanted.makeAsyncIterator()
            #expect(await wanted.next() != nil)
            // Away from the loops, as ClassPointWarmUp reads them.
            let away = try await Task.detached { try await store.database.read { db in try await db.classPoints?.points(db) } }.value
            #expect(away != nil)
        }
    }
}
