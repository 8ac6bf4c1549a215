import ClassTodayServer
import Configuration
import Foundation
import Synchronization
import Testing

/// Records every configuration key read, with the environment variable the environment provider looked it up as.
final class SettingsReadRecorder: AccessReporter {
    private let reads = Mutex<[String: String]>([:])

    /// Each key read (dotted, as in the config file) and its `CLASSTODAY_` variable.
    var settings: [String: String] { reads.withLock { $0 } }

    /// Notes the key `event` read and the variable the environment provider looked it up as.
    func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        let variable = event.providerResults.lazy.compactMap { try? $0.result.get().encodedKey }
            .first { $0.hasPrefix("CLASSTODAY_") }
        reads.withLock { $0[key] = variable ?? "(none)" }
    }
}

/// `docs/configuration.md` against the settings the code reads.
@Suite("Configuration page")
struct ConfigurationPageTests {
    /// The repository's root: four levels above this file (Tests/ClassTodayServerTests/Application/).
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The settings the code reads, found by resolving a configuration with every source empty and recording each key.
    static func settingsRead() async throws -> [String: String] {
        let emptyFile = FileManager.default.temporaryDirectory.appending(path: "empty-\(UUID().uuidString).json")
        try "{}".write(to: emptyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: emptyFile) }
        let recorder = SettingsReadRecorder()
        _ = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: emptyFile.path, accessReporter: recorder)
        return recorder.settings
    }

    /// The page's setting rows: `| `key` | `CLASSTODAY_…` | …`, key to variable.
    static func settingsDocumented(in page: String) -> [String: String] {
        var rows: [String: String] = [:]
        for match in page.matches(of: /^\|\s*`([A-Za-z][A-Za-z0-9.]*)`\s*\|\s*`(CLASSTODAY_[A-Z0-9_]+)`\s*\|/.anchorsMatchLineEndings()) {
            rows[String(match.output.1)] = String(match.output.2)
        }
        return rows
    }

    @Test("every setting the code reads has a row with its environment variable, and every row is a setting it reads")
    func pageMatchesCode() async throws {
        let page = try String(contentsOf: Self.root.appending(path: "docs/configuration.md"), encoding: .utf8)
        let read = try await Self.settingsRead()
        let documented = Self.settingsDocumented(in: page)
        #expect(read.count > 50 && read["push.timeoutSeconds"] == "CLASSTODAY_PUSH_TIMEOUT_SECONDS")
        for (key, variable) in read.sorted(by: { $0.key < $1.key }) {
            #expect(documented[key] == variable, "docs/configuration.md should list `\(key)` with `\(variable)`")
        }
        for key in documented.keys.sorted() where read[key] == nil {
            Issue.record("docs/configuration.md lists `\(key)`, which the code does not read")
        }
        let known = Set(read.values).union([AppConfiguration.configFileVariable])
        let unknown = Set(page.matches(of: /CLASSTODAY_[A-Z0-9_]+/).map { String($0.output) }).subtracting(known)
        #expect(unknown.isEmpty, "docs/configuration.md names variables the code does not read: \(unknown.sorted())")
    }

    @Test("a row for a setting the code does not read is found, and so is a missing one")
    func differencesAreFound() async throws {
        let page = """
            | `host` | `CLASSTODAY_HOST` | `127.0.0.1` | address |
            | `nonsense.key` | `CLASSTODAY_NONSENSE_KEY` | 1 | nothing |
            """
        let documented = Self.settingsDocumented(in: page)
        let read = try await Self.settingsRead()
        #expect(documented == ["host": "CLASSTODAY_HOST", "nonsense.key": "CLASSTODAY_NONSENSE_KEY"])
        #expect(read["host"] == "CLASSTODAY_HOST" && read["nonsense.key"] == nil && read["port"] != nil)
    }
}
