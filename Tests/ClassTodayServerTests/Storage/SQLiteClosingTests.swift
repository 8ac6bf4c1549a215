import Foundation
import Logging
import Testing
@testable import ClassTodayServer

/// Closing the SQLite store at shutdown: the log is emptied and removed, and a second close, or a purge that comes
/// after it, finds nothing to do instead of handing SQLite a closed connection.
@Suite("SQLite store closing")
struct SQLiteClosingTests {
    @Test("close removes the WAL; closing again and purging afterwards do nothing and do not crash")
    func closeTwice() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-closing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("closing.sqlite").path
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let store = try SQLiteStore.open(path: path, durableCommits: false, logger: logger)
        try await store.database.execute("CREATE TABLE notes (text TEXT NOT NULL)")
        try await store.database.execute("INSERT INTO notes (text) VALUES ('지울 메모')")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        store.close(logger: logger)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        store.close(logger: logger)
        try await store.database.purgeDeletedData()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let reopened = try SQLiteStore.open(path: path, durableCommits: false, logger: logger)
        let row = try await reopened.database.row("SELECT text FROM notes")
        #expect(try row?["text"] as String? == "지울 메모")
        reopened.close(logger: logger)
    }
}
